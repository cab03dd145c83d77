import Foundation

/// How a purchase ended, in seed 000's groups: whether money was taken and whether the content
/// was delivered.
public enum PurchaseOutcome: Sendable, Hashable {
    /// No money was taken.
    case notCharged(NotChargedReason)
    /// Charged, recorded by the server, the transaction finished (with the customer's information
    /// when the server answered it too).
    case delivered(transactionId: String, CustomerInfo?)
    /// Charged but the server has not recorded it yet: kept on disk, posted again later,
    /// not finished.
    case chargedNotDelivered(transactionId: String, attempts: Int, reason: String)
    /// Charged and given up on after the bound (or refused by the server): reported as a
    /// problem with its evidence (`problemReported` false until the report got through).
    case chargedGivenUp(transactionId: String, reason: String, problemReported: Bool)

    /// Why no money was taken.
    public enum NotChargedReason: Sendable, Hashable {
        case cancelled
        /// Ask to Buy or a payment step: the transaction arrives later through the updates.
        case pending
        case notAllowed
        case productUnavailable
        /// The App Store (or the server, for a promotional offer's signature) could not be
        /// reached before payment.
        case networkBeforePayment
        case failed(String)
    }

    /// The group's name: `not_charged`, `delivered`, `charged_not_delivered`, `charged_given_up`.
    public var group: String {
        switch self {
        case .notCharged: return "not_charged"
        case .delivered: return "delivered"
        case .chargedNotDelivered: return "charged_not_delivered"
        case .chargedGivenUp: return "charged_given_up"
        }
    }
}
