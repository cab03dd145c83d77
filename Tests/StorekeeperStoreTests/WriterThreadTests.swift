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

    @Test("many writers started at once each carry their own name, whichever thread runs first")
    func namesUnderContention() async throws {
        // A thread that ran before Foundation recorded it kept the name it inherited from the
        // pool thread that created it, once in about 25 starts.
        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let writer = WriterThread(name: "test.w\(index)")
                    defer { writer.stop() }
                    return try await writer.run {
                        try await Task.sleep(for: .milliseconds(1))
                        return threadName() == "test.w\(index)" ? "" : threadName()
                    }
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(names.filter { !$0.isEmpty } == [])
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
