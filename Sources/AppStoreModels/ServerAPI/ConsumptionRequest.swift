/// The body of Send Consumption Information (v2, API 1.19), answering a `CONSUMPTION_REQUEST`.
public struct ConsumptionRequest: Codable, Hashable, Sendable {
    /// Whether the customer consented to sharing consumption data with the App Store (must be true).
    public var customerConsented: Bool

    /// How much of the purchase was consumed, in milliunits (100000 = 100%); leave out for auto-renewable
    /// subscriptions.
    public var consumptionPercentage: Int32?

    /// Whether the purchase was delivered and works.
    public var deliveryStatus: DeliveryStatus

    /// Your preferred outcome of the refund request.
    public var refundPreference: RefundPreference?

    /// Whether the app provided a free sample or trial of the content before purchase.
    public var sampleContentProvided: Bool

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        customerConsented: Bool,
        consumptionPercentage: Int32? = nil,
        deliveryStatus: DeliveryStatus,
        refundPreference: RefundPreference? = nil,
        sampleContentProvided: Bool
    ) {
        self.customerConsented = customerConsented
        self.consumptionPercentage = consumptionPercentage
        self.deliveryStatus = deliveryStatus
        self.refundPreference = refundPreference
        self.sampleContentProvided = sampleContentProvided
    }
}
