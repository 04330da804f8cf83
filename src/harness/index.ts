// sexton/harness: reproduce zombie-leaking pods and prove an init cleans up, from your own tests.
export { initPrefix, runAsPid1, SEXTON_ENTRY } from './pid1';
export { childrenOf, findPid1, inPidNamespace, PID_NAMESPACE, USER_PID_NAMESPACE } from './namespace';
export type { FindOptions } from './namespace';
export { namespaceModeFor, userNamespaceBlocker, whyNotRun } from './userns';
export type { NamespaceMode, UserNamespaceSysctls } from './userns';
export { assertNoZombieLeak, VERDICT_EXIT_CODES, verdictOf } from './verdict';
export type { LeakCheck, Verdict } from './verdict';
export type { InitChoice, Pid1Report, RunOptions, Sample, ZombieParent } from './pid1';
export { runWorkload, WORKLOADS } from './workloads';
export type { WorkloadName, WorkloadOptions, WorkloadReport } from './workloads';
export { formatReport, harnessMain } from './cli';
