import Foundation

/// Something gone wrong that a person should know of: a customer charged whose purchase never
/// reached the app (a support ticket with the money and the evidence), or an operational cause
/// (Apple refusing the API key, webhooks dead-lettering, a job failing again and again).
///
/// Opened once per cause (``causeKey``) while open — a repeat counts an occurrence — and
/// resolved by hand or when the cause clears.
public struct Problem: Sendable, Hashable {
    public var id: Int64?
    public var appId: String
    /// `charged_not_delivered`, `not_charged`, `dead_letters`, `job_failing`, `apple_unauthorized` …
    public var kind: String
    /// What makes two reports the same problem.
    public var causeKey: String
    public var status: ProblemStatus
    public var customerId: String?
    public var summary: String
    /// What shows it (ids, the last error, attempts), as text.
    public var evidence: [String: String]
    /// The money involved, when a customer paid.
    public var amount: Decimal?
    public var currency: String?
    public var occurrences: Int
    public var openedAt: Date
    public var resolvedAt: Date?
    /// Who or what resolved it (`dashboard:…`, a key's fingerprint, `automatic`).
    public var resolvedBy: String?

    public init(
        id: Int64? = nil, appId: String, kind: String, causeKey: String, status: ProblemStatus = .open, customerId: String? = nil,
        summary: String, evidence: [String: String] = [:], amount: Decimal? = nil, currency: String? = nil, occurrences: Int = 1,
        openedAt: Date, resolvedAt: Date? = nil, resolvedBy: String? = nil
    ) {
        self.id = id
        self.appId = appId
        self.kind = kind
        self.causeKey = causeKey
        self.status = status
        self.customerId = customerId
        self.summary = summary
        self.evidence = evidence
        self.amount = amount
        self.currency = currency
        self.occurrences = occurrences
        self.openedAt = openedAt
        self.resolvedAt = resolvedAt
        self.resolvedBy = resolvedBy
    }
}

public enum ProblemStatus: String, Sendable, Hashable, CaseIterable, Codable {
    /// Needs attention.
    case open
    /// Handled, by a person or because its cause cleared.
    case resolved
    /// Only counted and shown (a purchase that failed before any payment).
    case noted
}
