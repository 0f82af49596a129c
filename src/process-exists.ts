// Whether a process with a given pid exists on this machine, for the files a process names by its pid
// (a listener's journal lock, a run's output temporaries).

/** Signal 0 checks without signalling; EPERM means the process exists, as another user's. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
