/// How a subscription with a commitment will be billed at its next renewal (`renewalBillingPlanType`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct RenewalBillingPlanType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The whole commitment is billed at once.
    public static let billedUpfront = RenewalBillingPlanType(rawValue: "BILLED_UPFRONT")

    /// Billed monthly over a 12-month commitment.
    public static let monthly = RenewalBillingPlanType(rawValue: "MONTHLY")

    public static let known: [RenewalBillingPlanType] = [
        .billedUpfront, .monthly,
    ]
}

/// How a transaction was revoked (`revocationType`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct RevocationType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A full refund.
    public static let refundFull = RevocationType(rawValue: "REFUND_FULL")

    /// A prorated refund; see `revocationPercentage`.
    public static let refundProrated = RevocationType(rawValue: "REFUND_PRORATED")

    /// Family Sharing access was revoked.
    public static let familyRevoke = RevocationType(rawValue: "FAMILY_REVOKE")

    public static let known: [RevocationType] = [
        .refundFull, .refundProrated, .familyRevoke,
    ]
}

/// Whether an auto-renewable subscription renews at the end of its period (`autoRenewStatus`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AutoRenewStatus: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Auto-renewal is off.
    public static let off = AutoRenewStatus(rawValue: 0)

    /// Auto-renewal is on.
    public static let on = AutoRenewStatus(rawValue: 1)

    public static let known: [AutoRenewStatus] = [
        .off, .on,
    ]
}

/// Why the App Store refunded or revoked a transaction (`revocationReason`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct RevocationReason: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Refunded for another reason, such as an accidental purchase.
    public static let refundedForOtherReason = RevocationReason(rawValue: 0)

    /// Refunded because of an actual or perceived issue in the app.
    public static let refundedDueToIssue = RevocationReason(rawValue: 1)

    public static let known: [RevocationReason] = [
        .refundedForOtherReason, .refundedDueToIssue,
    ]
}

/// How a subscription with a commitment is billed (`billingPlanType`, API 1.21).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct BillingPlanType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The whole commitment is billed at once.
    public static let billedUpfront = BillingPlanType(rawValue: "BILLED_UPFRONT")

    /// Billed monthly over a 12-month commitment.
    public static let monthly = BillingPlanType(rawValue: "MONTHLY")

    public static let known: [BillingPlanType] = [
        .billedUpfront, .monthly,
    ]
}

/// The customer's response to a subscription price increase (`priceIncreaseStatus`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct PriceIncreaseStatus: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The customer has not yet responded to a price increase that requires consent.
    public static let customerHasNotResponded = PriceIncreaseStatus(rawValue: 0)

    /// The customer consented, or was notified of an increase that needs no consent.
    public static let customerConsentedOrWasNotifiedWithoutNeedingConsent = PriceIncreaseStatus(rawValue: 1)

    public static let known: [PriceIncreaseStatus] = [
        .customerHasNotResponded, .customerConsentedOrWasNotifiedWithoutNeedingConsent,
    ]
}

/// Whether the customer bought the purchase or has it through Family Sharing (`inAppOwnershipType`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct InAppOwnershipType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Available through Family Sharing.
    public static let familyShared = InAppOwnershipType(rawValue: "FAMILY_SHARED")

    /// Purchased by the customer.
    public static let purchased = InAppOwnershipType(rawValue: "PURCHASED")

    public static let known: [InAppOwnershipType] = [
        .familyShared, .purchased,
    ]
}

/// Why a transaction exists (`transactionReason`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct TransactionReason: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The customer initiated the purchase (including an upgrade or offer).
    public static let purchase = TransactionReason(rawValue: "PURCHASE")

    /// The App Store renewed an auto-renewable subscription.
    public static let renewal = TransactionReason(rawValue: "RENEWAL")

    public static let known: [TransactionReason] = [
        .purchase, .renewal,
    ]
}
