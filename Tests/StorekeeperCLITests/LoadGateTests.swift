import StorekeeperTestSupport
import Synchronization
import Testing

/// The gate that keeps timing-bound suites apart from heavy ones (``LoadGate``): readers share
/// it, a writer holds it alone, and waiters are admitted in arrival order.
@Suite("The load gate between timing-bound and heavy suites")
struct LoadGateTests {
    /// Who is inside, by name, in the order they came in.
    final class Entries: Sendable {
        private let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    /// Waits (up to 120 s) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<12_000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        return condition()
    }

    @Test("readers share the gate; a writer waits for them; a reader arriving after a waiting writer waits for the writer")
    func writerAloneInArrivalOrder() async throws {
        let lock = ReadersWriterLock()
        await lock.acquire(.shared)
        await lock.acquire(.shared)
        let entries = Entries()
        let writer = Task {
            await lock.acquire(.exclusive)
            entries.add("writer")
        }
        #expect(try await Self.eventually { lock.waitingCount == 1 })
        let lateReader = Task {
            await lock.acquire(.shared)
            entries.add("late reader")
        }
        #expect(try await Self.eventually { lock.waitingCount == 2 })
        lock.release(.shared)
        #expect(lock.waitingCount == 2 && entries.all.isEmpty, "the writer came in beside a reader")
        lock.release(.shared)
        await writer.value
        #expect(entries.all == ["writer"])
        #expect(lock.waitingCount == 1, "the late reader came in beside the writer")
        lock.release(.exclusive)
        await lateReader.value
        #expect(entries.all == ["writer", "late reader"])
        lock.release(.shared)
    }

    @Test("two writers take turns")
    func writersTakeTurns() async throws {
        let lock = ReadersWriterLock()
        await lock.acquire(.exclusive)
        let second = Task { await lock.acquire(.exclusive) }
        #expect(try await Self.eventually { lock.waitingCount == 1 })
        lock.release(.exclusive)
        await second.value
        #expect(lock.waitingCount == 0)
        lock.release(.exclusive)
    }
}
