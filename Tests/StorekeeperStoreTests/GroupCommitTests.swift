import Foundation
import Testing

@testable import StorekeeperStore

@Suite("Group commit")
struct GroupCommitTests {
    /// Records each transaction's items; a transaction holding a negative item fails whole.
    actor Transactions {
        var groups: [[Int]] = []

        func write(_ items: [Int]) async throws -> [Int] {
            try await Task.sleep(for: .milliseconds(5))
            groups.append(items)
            if items.contains(where: { $0 < 0 }) { throw StoreError(code: .corruptRow, message: "bad item") }
            return items.map { $0 * 10 }
        }
    }

    @Test("concurrent writers share transactions; each is answered with its own result; a bad item fails only its writer")
    func sharedTransactions() async throws {
        let transactions = Transactions()
        let commit = GroupCommit<Int, Int>(limit: 16) { take in try await transactions.write(await take()) }
        let items = Array(1...100) + [-7]
        let answers = await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
            for item in items {
                group.addTask {
                    do { return (item, .success(try await commit.write(item))) } catch { return (item, .failure(error)) }
                }
            }
            var answers: [Int: Result<Int, any Error>] = [:]
            for await (item, answer) in group { answers[item] = answer }
            return answers
        }
        for item in 1...100 {
            #expect((try? answers[item]?.get()) == item * 10)
        }
        #expect(throws: StoreError.self) { try answers[-7]?.get() }
        let groups = await transactions.groups
        // Fewer transactions than writers, none over the limit; every good item committed once
        // in a transaction that did not fail.
        #expect(groups.count < items.count)
        #expect(groups.allSatisfy { $0.count <= 16 })
        let committed = groups.filter { !$0.contains { $0 < 0 } }.joined()
        #expect(committed.sorted() == Array(1...100))
    }

    @Test("with the database out of reach a group fails at once, without each item trying again alone")
    func unreachableFailsTheGroup() async throws {
        let calls = Transactions()
        let commit = GroupCommit<Int, Int>(limit: 64) { take in
            _ = try? await calls.write(await take().map { -$0 })
            throw StoreError(code: .unavailable, message: "down")
        }
        let failures = await withTaskGroup(of: Bool.self) { group in
            for item in 1...20 {
                group.addTask { (try? await commit.write(item)) == nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 20)
        // One attempt per group: as many calls as groups, far fewer than items.
        let groups = await calls.groups
        #expect(groups.joined().count == 20)
        #expect(groups.count < 20)
    }

    /// A writer lock held by the test: transactions wait for it before taking their items.
    actor Writer {
        var held = true
        var waiters: [CheckedContinuation<Void, Never>] = []

        func acquire() async {
            if held { await withCheckedContinuation { waiters.append($0) } }
        }

        func release() {
            held = false
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
    }

    @Test("items that arrive while the transaction waits for the writer share it: they are taken once it is held")
    func takenWhenHeld() async throws {
        let writer = Writer()
        let transactions = Transactions()
        let commit = GroupCommit<Int, Int>(limit: 64) { take in
            await writer.acquire()
            return try await transactions.write(await take())
        }
        let answers = Task {
            await withTaskGroup(of: Int?.self) { group in
                for item in 1...12 {
                    group.addTask { try? await commit.write(item) }
                }
                return await group.reduce(into: [Int]()) { if let answer = $1 { $0.append(answer) } }
            }
        }
        // All twelve wait while the first transaction waits for the writer (however long a
        // loaded machine takes to start their tasks).
        for _ in 0..<1_200 where commit.waitingCount < 12 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(commit.waitingCount == 12)
        await writer.release()
        #expect(await answers.value.sorted() == (1...12).map { $0 * 10 })
        #expect(await transactions.groups.map { $0.sorted() } == [Array(1...12)])
    }

    @Test("a transaction that fails before it takes its items fails the items waiting, and the next ones are written")
    func failsBeforeTaking() async throws {
        let failing = Failing()
        let commit = GroupCommit<Int, Int>(limit: 64) { take in
            if await failing.next() { throw StoreError(code: .unavailable, message: "down") }
            return await take().map { $0 * 10 }
        }
        await #expect(throws: StoreError.self) { try await commit.write(1) }
        #expect(try await commit.write(2) == 20)
    }

    /// Fails the first call only.
    actor Failing {
        var calls = 0
        func next() -> Bool {
            calls += 1
            return calls == 1
        }
    }
}
