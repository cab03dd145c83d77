/// Lets concurrent writers share one durable commit: each caller hands in its item and waits;
/// whoever finds no commit under way writes every waiting item in one transaction, then the
/// items that arrived meanwhile, and so on. Each caller is answered only after the
/// transaction holding its item has committed.
///
/// When a shared transaction fails, each of its items is written again alone, so one bad item
/// fails only its own caller — unless the database is out of reach, which fails the group.
actor GroupCommit<Item: Sendable, Answer: Sendable> {
    typealias Waiter = (item: Item, continuation: CheckedContinuation<Answer, any Error>)

    /// Writes the items in one transaction, answering each in order; throws if the
    /// transaction fails.
    private let writeAll: @Sendable ([Item]) async throws -> [Answer]
    /// At most this many items share a commit.
    private let limit: Int
    private var waiting: [Waiter] = []
    private var writing = false

    init(limit: Int = 256, writeAll: @escaping @Sendable ([Item]) async throws -> [Answer]) {
        self.limit = max(1, limit)
        self.writeAll = writeAll
    }

    /// Writes `item`, returning once it is durable.
    func write(_ item: Item) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            waiting.append((item, continuation))
            if !writing {
                writing = true
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while !waiting.isEmpty {
            let group = Array(waiting.prefix(limit))
            waiting.removeFirst(group.count)
            await commit(group)
        }
        writing = false
    }

    private func commit(_ group: [Waiter]) async {
        do {
            let answers = try await writeAll(group.map(\.item))
            if answers.count == group.count {
                for (waiter, answer) in zip(group, answers) { waiter.continuation.resume(returning: answer) }
                return
            }
        } catch {
            // Alone, or with the database out of reach, every item would fail again: fail them
            // now rather than making each wait its own turn at an unreachable database.
            if group.count == 1 || (error as? StoreError)?.code == .unavailable {
                for waiter in group { waiter.continuation.resume(throwing: error) }
                return
            }
        }
        for waiter in group {
            do {
                let answers = try await writeAll([waiter.item])
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
