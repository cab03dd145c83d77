import Foundation
import SubscriptionEngine

/// One normalized fact the ledger keeps: a purchase, a renewal fact, or an operator's
/// revocation of a transaction.
public enum LedgerFact: Sendable, Hashable, Codable {
    /// A transaction (from any source, or a manual grant).
    case purchase(PurchaseFact)
    /// What Apple says about a chain's next renewal.
    case renewal(RenewalFact)
    /// The operator took back a transaction or a grant.
    case revocation(ManualRevocation)

    /// The operator's revocation of one transaction.
    public struct ManualRevocation: Sendable, Hashable, Codable {
        public var transactionId: String
        public var date: Date
        public var reason: String?
        /// The chain of the revoked transaction, so the subscription's own view sees the
        /// revocation as the customer's does (absent in revocations an earlier version stored).
        public var originalTransactionId: String?

        public init(transactionId: String, date: Date, reason: String? = nil, originalTransactionId: String? = nil) {
            self.transactionId = transactionId
            self.date = date
            self.reason = reason
            self.originalTransactionId = originalTransactionId
        }
    }

    /// The stored name of the case.
    public var kind: String {
        switch self {
        case .purchase: "purchase"
        case .renewal: "renewal"
        case .revocation: "revocation"
        }
    }

    /// The chain the fact belongs to, when it names one.
    public var originalTransactionId: String? {
        switch self {
        case .purchase(let fact): fact.originalTransactionId
        case .renewal(let fact): fact.originalTransactionId
        case .revocation(let revocation): revocation.originalTransactionId
        }
    }

    /// The transaction the fact is about, when it names one.
    public var transactionId: String? {
        switch self {
        case .purchase(let fact): fact.transactionId
        case .renewal: nil
        case .revocation(let revocation): revocation.transactionId
        }
    }

    /// When Apple (or the operator) signed or made the fact; orders the ledger.
    public var signedDate: Date? {
        switch self {
        case .purchase(let fact): fact.signedDate ?? fact.purchaseDate
        case .renewal(let fact): fact.signedDate
        case .revocation(let revocation): revocation.date
        }
    }
}
