import Foundation
import SubscriptionAnalytics

/// A chain's figures in one environment as the intake computed them from the chain's ledger
/// (docs/read-side.md), for the store to write in the same transaction as the facts.
public struct FigureUpdate: Sendable, Hashable {
    public var environment: String
    public var chain: String
    /// How many rows of the chain's ledger the figures were computed from: the store writes them
    /// only when the chain has as many then (otherwise another intake of the chain came between).
    public var facts: Int
    /// The app's reporting time zone, whose days the rollups are keyed by.
    public var timeZone: String
    public var figures: ChainFigures
    /// The customer the chain belongs to, whose cohort rows follow from the figures of all the
    /// customer's chains (``ChainFigures/cohortRows(of:calendar:)``); `nil`: in no cohort.
    public var customer: String?
    /// Set by the store on an update it has written with others in bulk and whose customer's
    /// cohort rows are still to write.
    var rewriteOnly = false
    /// The job that computes the chain's figures again when these could not be written.
    public var retry: JobRecord
    /// The figures' document and rollup cells, worked out by the store before it takes its
    /// writer (``prepared()``), so the one writer only compares and writes; `nil`: worked out
    /// when written.
    var encoded: String?
    var days: [FigureDayKey: Int64]?

    public init(
        environment: String, chain: String, facts: Int, timeZone: String, figures: ChainFigures, customer: String?, retry: JobRecord
    ) {
        self.environment = environment
        self.chain = chain
        self.facts = facts
        self.timeZone = timeZone
        self.figures = figures
        self.customer = customer
        self.retry = retry
    }

    /// The key of a customer's cohort rows among the chains' (no chain id has a colon).
    public static func cohortKey(_ customer: String) -> String { "cohort:" + customer }

    /// The owner (``customer``) of the chains of a customer.
    public static func owner(customer: String) -> String { customerOwnerPrefix + customer }

    /// The customer an owner names, or nil for a chain that owns itself.
    public static func customer(ofOwner owner: String) -> String? {
        owner.hasPrefix(customerOwnerPrefix) ? String(owner.dropFirst(customerOwnerPrefix.count)) : nil
    }

    /// The owner of a chain that belongs to no customer: the chain itself.
    public static func owner(chain: String) -> String { "chain:" + chain }

    private static let customerOwnerPrefix = "customer:"

    var calendar: FigureCalendar { FigureCalendar(timeZone: TimeZone(identifier: timeZone) ?? .gmt) }

    /// This update with its document encoded and its rollup cells computed.
    func prepared() -> FigureUpdate {
        var update = self
        update.encoded = figures.text
        update.days = figures.days(in: calendar)
        return update
    }

    /// The document as stored.
    func document() -> String { encoded ?? figures.text }

    /// The rollup cells of the figures.
    func cells() -> [FigureDayKey: Int64] { days ?? figures.days(in: calendar) }
}

extension Changeset {
    /// This changeset with its figures' documents and rollup cells worked out
    /// (``FigureUpdate/prepared()``): done before a store takes its writer.
    func withPreparedFigures() -> Changeset {
        var prepared = self
        prepared.figures = figures.map { $0.prepared() }
        return prepared
    }
}
