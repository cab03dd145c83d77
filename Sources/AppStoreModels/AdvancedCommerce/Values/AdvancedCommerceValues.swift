/// Why an Advanced Commerce offer is given.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommerceOfferReason: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// To acquire a new customer.
    public static let acquisition = AdvancedCommerceOfferReason(rawValue: "ACQUISITION")

    /// To win back a former customer.
    public static let winBack = AdvancedCommerceOfferReason(rawValue: "WIN_BACK")

    /// To retain a current customer.
    public static let retention = AdvancedCommerceOfferReason(rawValue: "RETENTION")

    public static let known: [AdvancedCommerceOfferReason] = [
        .acquisition, .winBack, .retention,
    ]
}

/// The state of a price increase for an Advanced Commerce subscription item.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommercePriceIncreaseInfoStatus: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The increase is scheduled.
    public static let scheduled = AdvancedCommercePriceIncreaseInfoStatus(rawValue: "SCHEDULED")

    /// The increase awaits the customer's consent.
    public static let pending = AdvancedCommercePriceIncreaseInfoStatus(rawValue: "PENDING")

    /// The customer accepted the increase.
    public static let accepted = AdvancedCommercePriceIncreaseInfoStatus(rawValue: "ACCEPTED")

    public static let known: [AdvancedCommercePriceIncreaseInfoStatus] = [
        .scheduled, .pending, .accepted,
    ]
}

/// Why an Advanced Commerce subscription item changes.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommerceReason: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// An upgrade.
    public static let upgrade = AdvancedCommerceReason(rawValue: "UPGRADE")

    /// A downgrade.
    public static let downgrade = AdvancedCommerceReason(rawValue: "DOWNGRADE")

    /// An offer is applied.
    public static let applyOffer = AdvancedCommerceReason(rawValue: "APPLY_OFFER")

    public static let known: [AdvancedCommerceReason] = [
        .upgrade, .downgrade, .applyOffer,
    ]
}

/// When an Advanced Commerce change takes effect.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommerceEffective: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Right away.
    public static let immediately = AdvancedCommerceEffective(rawValue: "IMMEDIATELY")

    /// At the next billing cycle.
    public static let nextBillCycle = AdvancedCommerceEffective(rawValue: "NEXT_BILL_CYCLE")

    public static let known: [AdvancedCommerceEffective] = [
        .immediately, .nextBillCycle,
    ]
}

/// How much of an Advanced Commerce purchase is refunded.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommerceRefundType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The full amount.
    public static let full = AdvancedCommerceRefundType(rawValue: "FULL")

    /// A prorated amount.
    public static let prorated = AdvancedCommerceRefundType(rawValue: "PRORATED")

    /// A custom amount given in `refundAmount`.
    public static let custom = AdvancedCommerceRefundType(rawValue: "CUSTOM")

    public static let known: [AdvancedCommerceRefundType] = [
        .full, .prorated, .custom,
    ]
}
