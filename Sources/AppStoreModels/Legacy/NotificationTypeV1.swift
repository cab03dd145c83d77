/// The `notification_type` of an App Store Server Notification V1 (deprecated JSON notifications).
///
/// An open set: unknown values decode, keep their raw string and encode back unchanged.
public struct NotificationTypeV1: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The customer subscribed for the first time to a subscription group.
    public static let initialBuy = NotificationTypeV1(rawValue: "INITIAL_BUY")
    /// The subscription renewed automatically.
    public static let didRenew = NotificationTypeV1(rawValue: "DID_RENEW")
    /// The customer renewed or resubscribed interactively (in the app or in account settings).
    public static let interactiveRenewal = NotificationTypeV1(rawValue: "INTERACTIVE_RENEWAL")
    /// The customer changed the plan that takes effect at the next renewal.
    public static let didChangeRenewalPref = NotificationTypeV1(rawValue: "DID_CHANGE_RENEWAL_PREF")
    /// The customer turned auto-renew on or off (see `auto_renew_status`).
    public static let didChangeRenewalStatus = NotificationTypeV1(rawValue: "DID_CHANGE_RENEWAL_STATUS")
    /// A renewal failed because of a billing issue; the subscription entered billing retry.
    public static let didFailToRenew = NotificationTypeV1(rawValue: "DID_FAIL_TO_RENEW")
    /// An expired subscription recovered through billing retry.
    public static let didRecover = NotificationTypeV1(rawValue: "DID_RECOVER")
    /// The old name of ``didRecover`` (deprecated by Apple, still sent for a while).
    public static let renewal = NotificationTypeV1(rawValue: "RENEWAL")
    /// Apple Support cancelled the subscription and refunded it (`cancellation_date` set).
    public static let cancel = NotificationTypeV1(rawValue: "CANCEL")
    /// The App Store refunded a purchase (`cancellation_date` set).
    public static let refund = NotificationTypeV1(rawValue: "REFUND")
    /// A Family Sharing member lost access to the purchase.
    public static let revoke = NotificationTypeV1(rawValue: "REVOKE")
    /// The App Store started asking the customer to consent to a price increase (`price_consent_status` 0).
    public static let priceIncreaseConsent = NotificationTypeV1(rawValue: "PRICE_INCREASE_CONSENT")
    /// The customer asked for a refund of a consumable; send consumption information.
    public static let consumptionRequest = NotificationTypeV1(rawValue: "CONSUMPTION_REQUEST")

    public static let known: [NotificationTypeV1] = [
        .initialBuy, .didRenew, .interactiveRenewal, .didChangeRenewalPref, .didChangeRenewalStatus,
        .didFailToRenew, .didRecover, .renewal, .cancel, .refund, .revoke, .priceIncreaseConsent,
        .consumptionRequest,
    ]
}
