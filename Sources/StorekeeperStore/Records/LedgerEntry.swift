import Foundation
import SubscriptionEngine

/// One row of the ledger: a normalized fact with the raw data it came from.
///
/// The ledger is append-only and idempotent on ``key`` (Apple's identities of the fact, see
/// ``LedgerEntry/key(for:)``), so recording the same fact twice changes nothing, while a later fact about the same
/// transaction (a refund) is kept beside the first. State is always recomputed from all rows.
public struct LedgerEntry: Sendable, Hashable {
    /// The row id, assigned by the store.
    public var id: Int64?
    /// The tenant.
    public var appId: String
    /// The idempotency key; see ``LedgerEntry/key(for:)``.
    public var key: String
    /// The fact.
    public var fact: LedgerFact
    /// The customer, when the fact was recorded for one (grants, purchases posted by the app);
    /// otherwise the customer is found through the original transaction id alias.
    public var customerId: String?
    /// Where the fact came from.
    public var source: FactSource
    /// The raw signed data or body the fact was taken from, kept for replay and audit.
    public var raw: String?
    /// When the store recorded it.
    public var recordedAt: Date

    public init(
        id: Int64? = nil, appId: String, fact: LedgerFact, customerId: String? = nil, source: FactSource,
        raw: String? = nil, recordedAt: Date
    ) {
        self.init(
            id: id, appId: appId, key: Self.key(for: fact), fact: fact, customerId: customerId, source: source, raw: raw, recordedAt: recordedAt)
    }

    /// An entry read back from storage, with the key it was stored under (not recomputed).
    init(
        id: Int64?, appId: String, key: String, fact: LedgerFact, customerId: String?, source: FactSource, raw: String?, recordedAt: Date
    ) {
        self.id = id
        self.appId = appId
        self.key = key
        self.fact = fact
        self.customerId = customerId
        self.source = source
        self.raw = raw
        self.recordedAt = recordedAt
    }
}

extension PurchaseHistory {
    /// The history the ledger's entries describe; order does not matter to the engine, but
    /// entries are applied oldest signed first.
    public init(ledger entries: [LedgerEntry]) {
        self.init()
        let ordered = entries.sorted { ($0.fact.signedDate ?? .distantPast, $0.id ?? 0) < ($1.fact.signedDate ?? .distantPast, $1.id ?? 0) }
        for entry in ordered {
            switch entry.fact {
            case .purchase(let fact): add(fact)
            case .renewal(let fact): add(fact)
            case .revocation(let revocation): revoke(transactionId: revocation.transactionId, at: revocation.date)
            }
        }
    }
}
