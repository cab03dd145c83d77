import Foundation

/// The figure sums of one request, each question answered once: a page that asks the same
/// sums for several tiles and charts (the dashboard's Overview asks a range's items once per
/// tile) reads them once. Kept for one request only: the figures change with every fact.
public actor RememberedFigureSums: FigureSums {
    let base: any FigureSums
    private var snapshots: [SnapshotQuestion: [SnapshotSums]] = [:]
    private var items: [IntervalQuestion: [ItemSums]] = [:]
    private var churn: [IntervalQuestion: [Int]] = [:]
    private var groups: [Breakdown: [String]] = [:]

    public init(_ base: any FigureSums) {
        self.base = base
    }

    struct SnapshotQuestion: Hashable {
        var group: String
        var instants: [Date]
    }

    struct IntervalQuestion: Hashable {
        var group: String
        var intervals: [DateInterval]
        var now: Date
        var money = ItemMoney()
    }

    public func snapshotSums(group: String, at instants: [Date]) async throws -> [SnapshotSums] {
        let question = SnapshotQuestion(group: group, instants: instants)
        if let known = snapshots[question] { return known }
        let answer = try await base.snapshotSums(group: group, at: instants)
        snapshots[question] = answer
        return answer
    }

    public func itemSums(group: String, over intervals: [DateInterval], now: Date, money: ItemMoney) async throws -> [ItemSums] {
        let question = IntervalQuestion(group: group, intervals: intervals, now: now, money: money)
        if let known = items[question] { return known }
        let answer = try await base.itemSums(group: group, over: intervals, now: now, money: money)
        items[question] = answer
        return answer
    }

    public func churned(group: String, over intervals: [DateInterval], now: Date) async throws -> [Int] {
        let question = IntervalQuestion(group: group, intervals: intervals, now: now)
        if let known = churn[question] { return known }
        let answer = try await base.churned(group: group, over: intervals, now: now)
        churn[question] = answer
        return answer
    }

    public func groups(of breakdown: Breakdown) async throws -> [String] {
        if let known = groups[breakdown] { return known }
        let answer = try await base.groups(of: breakdown)
        groups[breakdown] = answer
        return answer
    }
}
