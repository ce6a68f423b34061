import { stripWorkspacePrefix } from './workspace-prefix.rule.js';

/** Reference §2.1 R2: an agent-store user row is compared without ONE leading workspace tag. */
describe('when an agent-store prompt carries a workspace tag', () => {
  it.each([
    ['[Workspace::v1: /srv/app]\nhello', 'hello'],
    ['  [Workspace::v1: /srv/a\\]b\\\\c]   hello  world', 'hello world'],
    ['[Workspace: /legacy/path] hello', 'hello'],
    ['[Workspace::v1: /a]\n[Workspace::v1: /b]\nhello', '[Workspace::v1: /b] hello'],
    ['[Workspace::v1: /a]\n[Workspace: /b] hello', '[Workspace: /b] hello'],
    ['hello [Workspace: /not/leading]', 'hello [Workspace: /not/leading]'],
    ['[workspace: /lower-case] hello', '[workspace: /lower-case] hello'],
  ])('stripWorkspacePrefix(%j) is %j', (raw, stripped) => {
    expect(stripWorkspacePrefix(raw)).toBe(stripped);
  });
});
