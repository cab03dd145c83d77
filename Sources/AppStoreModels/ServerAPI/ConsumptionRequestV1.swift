/// The body of Send Consumption Information v1, answering a `CONSUMPTION_REQUEST`.
///
/// Apple requires `appAccountToken`; send an empty string when there is none.
public struct ConsumptionRequestV1: Codable, Hashable, Sendable {
    /// Whether the customer consented to sharing consumption data with the App Store (must be true).
    public var customerConsented: Bool?

    /// How much of the purchase was consumed.
    public var consumptionStatus: ConsumptionStatus?

    /// The platform the purchase was consumed on.
    public var platform: Platform?

    /// Whether the app provided a free sample or trial of the content before purchase.
    public var sampleContentProvided: Bool?

    /// Whether the purchase was delivered and works.
    public var deliveryStatus: DeliveryStatusV1?

    /// The UUID of the customer's account in your app, or an empty string.
    public var appAccountToken: String

    /// The age of the customer's account.
    public var accountTenure: AccountTenure?

    /// How long the customer used the app.
    public var playTime: PlayTime?

    /// The customer's total refunds.
    public var lifetimeDollarsRefunded: LifetimeDollarsRefunded?

    /// The customer's total purchases.
    public var lifetimeDollarsPurchased: LifetimeDollarsPurchased?

    /// The state of the customer's account.
    public var userStatus: UserStatus?

    /// Your preferred outcome of the refund request.
    public var refundPreference: RefundPreferenceV1?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        customerConsented: Bool? = nil,
        consumptionStatus: ConsumptionStatus? = nil,
        platform: Platform? = nil,
        sampleContentProvided: Bool? = nil,
        deliveryStatus: DeliveryStatusV1? = nil,
        appAccountToken: String = "",
        accountTenure: AccountTenure? = nil,
        playTime: PlayTime? = nil,
        lifetimeDollarsRefunded: LifetimeDollarsRefunded? = nil,
        lifetimeDollarsPurchased: LifetimeDollarsPurchased? = nil,
        userStatus: UserStatus? = nil,
        refundPreference: RefundPreferenceV1? = nil
    ) {
        self.customerConsented = customerConsented
        self.consumptionStatus = consumptionStatus
        self.platform = platform
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.appAccountToken = appAccountToken
        self.accountTenure = accountTenure
        self.playTime = playTime
        self.lifetimeDollarsRefunded = lifetimeDollarsRefunded
        self.lifetimeDollarsPurchased = lifetimeDollarsPurchased
        self.userStatus = userStatus
        self.refundPreference = refundPreference
    }
}
