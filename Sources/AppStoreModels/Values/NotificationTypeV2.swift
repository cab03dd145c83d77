/// The event an App Store Server Notification V2 reports (`notificationType`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct NotificationTypeV2: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The customer subscribed (see subtype `INITIAL_BUY` or `RESUBSCRIBE`).
    public static let subscribed = NotificationTypeV2(rawValue: "SUBSCRIBED")

    /// The customer changed the product the subscription renews to (upgrade, downgrade, or cancelled a
    /// downgrade).
    public static let didChangeRenewalPref = NotificationTypeV2(rawValue: "DID_CHANGE_RENEWAL_PREF")

    /// The customer turned auto-renewal on or off.
    public static let didChangeRenewalStatus = NotificationTypeV2(rawValue: "DID_CHANGE_RENEWAL_STATUS")

    /// The customer redeemed a promotional offer, offer code or win-back offer.
    public static let offerRedeemed = NotificationTypeV2(rawValue: "OFFER_REDEEMED")

    /// The subscription renewed (subtype `BILLING_RECOVERY` after a billing problem).
    public static let didRenew = NotificationTypeV2(rawValue: "DID_RENEW")

    /// The subscription expired; the subtype says why.
    public static let expired = NotificationTypeV2(rawValue: "EXPIRED")

    /// Renewal failed because of a billing issue; subtype `GRACE_PERIOD` when a grace period applies.
    public static let didFailToRenew = NotificationTypeV2(rawValue: "DID_FAIL_TO_RENEW")

    /// The billing grace period ended without recovery.
    public static let gracePeriodExpired = NotificationTypeV2(rawValue: "GRACE_PERIOD_EXPIRED")

    /// A price increase was announced (subtype `PENDING`) or accepted (`ACCEPTED`).
    public static let priceIncrease = NotificationTypeV2(rawValue: "PRICE_INCREASE")

    /// The App Store refunded a transaction.
    public static let refund = NotificationTypeV2(rawValue: "REFUND")

    /// The App Store declined a refund request.
    public static let refundDeclined = NotificationTypeV2(rawValue: "REFUND_DECLINED")

    /// The customer asked for a refund and Apple asks for consumption information.
    public static let consumptionRequest = NotificationTypeV2(rawValue: "CONSUMPTION_REQUEST")

    /// The App Store extended a subscription's renewal date at your request.
    public static let renewalExtended = NotificationTypeV2(rawValue: "RENEWAL_EXTENDED")

    /// Family Sharing access to a purchase ended.
    public static let revoke = NotificationTypeV2(rawValue: "REVOKE")

    /// A test notification requested through the App Store Server API.
    public static let test = NotificationTypeV2(rawValue: "TEST")

    /// Progress of a renewal-date extension for all subscribers (subtype `SUMMARY` or `FAILURE`).
    public static let renewalExtension = NotificationTypeV2(rawValue: "RENEWAL_EXTENSION")

    /// The App Store reversed a previously granted refund.
    public static let refundReversed = NotificationTypeV2(rawValue: "REFUND_REVERSED")

    /// An External Purchase API token needs reporting.
    public static let externalPurchaseToken = NotificationTypeV2(rawValue: "EXTERNAL_PURCHASE_TOKEN")

    /// A consumable, non-consumable or non-renewing subscription was purchased.
    public static let oneTimeCharge = NotificationTypeV2(rawValue: "ONE_TIME_CHARGE")

    /// A parent or guardian withdrew consent for a child's use of the app.
    public static let rescindConsent = NotificationTypeV2(rawValue: "RESCIND_CONSENT")

    /// An Advanced Commerce subscription's metadata changed.
    public static let metadataUpdate = NotificationTypeV2(rawValue: "METADATA_UPDATE")

    /// An Advanced Commerce subscription was migrated.
    public static let migration = NotificationTypeV2(rawValue: "MIGRATION")

    /// An Advanced Commerce subscription's price changed.
    public static let priceChange = NotificationTypeV2(rawValue: "PRICE_CHANGE")

    public static let known: [NotificationTypeV2] = [
        .subscribed, .didChangeRenewalPref, .didChangeRenewalStatus, .offerRedeemed, .didRenew, .expired,
        .didFailToRenew, .gracePeriodExpired, .priceIncrease, .refund, .refundDeclined, .consumptionRequest,
        .renewalExtended, .revoke, .test, .renewalExtension, .refundReversed, .externalPurchaseToken,
        .oneTimeCharge, .rescindConsent, .metadataUpdate, .migration, .priceChange,
    ]
}
