import { ApiError, type Problem } from './api';

export function problemFrom(error: unknown): Problem {
  if (error instanceof ApiError) return error.problem;
  return { title: 'Something went wrong', status: 0, detail: error instanceof Error ? error.message : String(error) };
}

/** An error as the API said it: the problem-details title, then its detail and any bad fields. */
export function ProblemView({ error }: { error: unknown }) {
  const problem = problemFrom(error);
  return (
    <div className="problem" role="alert">
      <strong className="problem-title">{problem.title}</strong>
      {problem.detail && <p className="problem-detail">{problem.detail}</p>}
      {problem.errors && problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((e, i) => (
            <li key={i}>
              <code>{e.path}</code> {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children && <p>{children}</p>}
    </div>
  );
}
