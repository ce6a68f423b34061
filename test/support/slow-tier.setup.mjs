// Jest takes `testTimeout` from the global config only and ignores a project's own, so the int and e2e
// projects (real PostgreSQL, a booted app) had the 5 s default; their 60 s is set here instead.
import.meta.jest.setTimeout(60_000);
