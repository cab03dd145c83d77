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
        let commit = GroupCommit<Int, Int>(limit: 16) { try await transactions.write($0) }
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
        let commit = GroupCommit<Int, Int>(limit: 64) { items in
            _ = try? await calls.write(items.map { -$0 })
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
}
