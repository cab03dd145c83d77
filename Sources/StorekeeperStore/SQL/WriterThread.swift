import Foundation

/// A thread of its own for the SQLite writer: the work of a write (its statements, and the
/// `fsync` of its commit) runs here, preferred as the task executor, instead of on one of the
/// cooperative pool's threads.
///
/// Statements run on the calling thread (``DirectSQLiteConnection``), and a commit can block
/// for as long as the disk takes to flush, or a statement for as long as another process holds
/// SQLite's write lock (`busy_timeout`, 5 s). On the pool, with as many threads as cores, that
/// would stall every request in the meantime; here it stalls only the next write, which waits
/// for the writer anyway.
final class WriterThread: TaskExecutor, @unchecked Sendable {
    // `@unchecked`: `jobs` and `stopped` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    /// `name` (at most 15 bytes, the kernel's limit) is what `top -H` and a profiler show.
    init(name: String) {
        // Foundation names the system thread only once `start()` has recorded it: a name set
        // before then stays the creating thread's inherited one, so the thread waits for that.
        let started = DispatchSemaphore(value: 0)
        Thread { [self] in
            started.wait()
            Thread.current.name = name
            loop()
        }.start()
        started.signal()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        guard !stopped else {
            condition.unlock()
            // A task still running here when the store closed: finished on a thread of its own
            // rather than left waiting forever.
            let executor = asUnownedTaskExecutor()
            Thread { job.runSynchronously(on: executor) }.start()
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once the jobs already queued have run.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` with its work (and its children's) on this thread.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(self, operation: body)
    }

    private func loop() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty, !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: executor) }
        }
    }
}
