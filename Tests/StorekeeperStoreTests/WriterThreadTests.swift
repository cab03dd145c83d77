import Foundation
import Testing

@testable import StorekeeperStore

/// Writes run on the writer's own thread, never on the cooperative pool's.
@Suite("SQLite writer thread")
struct WriterThreadTests {
    @Test("a body and its children run on the writer's thread, and the caller gets its answer")
    func bodyRunsOnTheThread() async throws {
        let writer = WriterThread(name: "test.writer")
        defer { writer.stop() }
        let names = try await writer.run {
            async let child = threadName()
            try await Task.sleep(for: .milliseconds(5))
            return [threadName(), await child]
        }
        #expect(names == ["test.writer", "test.writer"])
    }

    @Test("work arriving after stop still runs")
    func afterStop() async throws {
        let writer = WriterThread(name: "test.writer")
        writer.stop()
        #expect(try await writer.run { 42 } == 42)
    }

    @Test("a file store's transactions commit on the writer thread")
    func storeTransactionsUseIt() async throws {
        let name = try await DirectSQLiteTests.withFileBackend { backend in
            try await backend.transaction { db in
                try await db.raw("CREATE TABLE t (x INTEGER)").run()
                return threadName()
            }
        }
        #expect(name == "sqlite-writer")
    }
}

/// The name of the thread running the caller (`Thread.current` cannot be read in async code).
private func threadName() -> String { Thread.current.name ?? "" }
