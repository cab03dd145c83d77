import Synchronization

/// Lets concurrent writers share one durable commit: each caller hands in its item and waits;
/// whoever finds no commit under way starts a transaction and, once it holds the writer, takes
/// every item waiting by then; the items that arrive meanwhile go in the next, and so on. Each
/// caller is answered only after the transaction holding its item has committed.
///
/// Taking the items when the writer is held, not before waiting for it, lets every item that
/// arrives while other work holds the writer share the commit (on SQLite, a commit's flush is
/// most of its cost).
///
/// When a shared transaction fails, each of its items is written again alone, so one bad item
/// fails only its own caller — unless the database is out of reach, which fails the group.
final class GroupCommit<Item: Sendable, Answer: Sendable>: Sendable {
    typealias Waiter = (item: Item, continuation: CheckedContinuation<Answer, any Error>)
    /// Hands the items of a transaction to it: called once, when the transaction holds the writer.
    typealias Take = @Sendable () async -> [Item]

    /// Writes the items `take` gives, in one transaction, answering each in order; throws if
    /// the transaction fails.
    private let writeAll: @Sendable (_ take: @escaping Take) async throws -> [Answer]
    /// At most this many items share a commit.
    private let limit: Int

    private struct State {
        var waiting: [Waiter] = []
        var writing = false
    }
    /// A lock, not an actor: `take` runs while the transaction holds the writer, and must not
    /// wait for a turn on the shared threads (busy verifying signatures) to hand over the items.
    private let state = Mutex(State())

    init(limit: Int = 256, writeAll: @escaping @Sendable (_ take: @escaping Take) async throws -> [Answer]) {
        self.limit = max(1, limit)
        self.writeAll = writeAll
    }

    /// Writes `item`, returning once it is durable.
    func write(_ item: Item) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLock { state in
                state.waiting.append((item, continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if starts { Task { await self.drain() } }
        }
    }

    /// How many items wait for a transaction to take them.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    private func take() -> [Waiter] {
        state.withLock { state in
            let taken = Array(state.waiting.prefix(limit))
            state.waiting.removeFirst(taken.count)
            return taken
        }
    }

    private func drain() async {
        while true {
            // The items the transaction took, once it holds the writer.
            let taken = Mutex<[Waiter]?>(nil)
            let result: Result<[Answer], any Error>
            do {
                result = .success(
                    try await writeAll {
                        let group = self.take()
                        taken.withLock { $0 = group }
                        return group.map(\.item)
                    })
            } catch {
                result = .failure(error)
            }
            // A transaction that failed before it took its items fails them as it would have.
            let group = taken.withLock { $0 } ?? take()
            await finish(group, result)
            let more = state.withLock { state in
                if state.waiting.isEmpty { state.writing = false }
                return state.writing
            }
            if !more { return }
        }
    }

    private func finish(_ group: [Waiter], _ result: Result<[Answer], any Error>) async {
        switch result {
        case .success(let answers) where answers.count == group.count:
            for (waiter, answer) in zip(group, answers) { waiter.continuation.resume(returning: answer) }
            return
        case .success:
            break
        case .failure(let error):
            // Alone, or with the database out of reach, every item would fail again: fail them
            // now rather than making each wait its own turn at an unreachable database.
            if group.count == 1 || (error as? StoreError)?.code == .unavailable {
                for waiter in group { waiter.continuation.resume(throwing: error) }
                return
            }
        }
        for waiter in group {
            do {
                let item = waiter.item
                let answers = try await writeAll { [item] }
                guard let answer = answers.first else {
                    waiter.continuation.resume(throwing: StoreError(code: .corruptRow, message: "a write answered nothing"))
                    continue
                }
                waiter.continuation.resume(returning: answer)
            } catch {
                waiter.continuation.resume(throwing: error)
            }
        }
    }
}
