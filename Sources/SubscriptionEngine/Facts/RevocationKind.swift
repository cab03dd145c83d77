import Foundation

/// Why Apple took a transaction back.
public enum RevocationKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A full refund (StoreKit 2 `REFUND_FULL`, or any legacy `cancellation_date` on a purchase).
    case refund
    /// A partial refund (`REFUND_PRORATED`); ``Revocation/percentage`` says how much.
    case proratedRefund
    /// The purchaser stopped sharing, or was refunded, so the family member lost access
    /// (`FAMILY_REVOKE`, or a legacy `cancellation_date` on a family-shared transaction).
    case familyRevoke
    /// The customer upgraded: Apple ended this period early and refunded its unused part. This
    /// ends the period but does not revoke the subscription, which continues on the new product.
    case upgrade
    /// Revoked by the app's operator through a manual fact.
    case manual
}
