/// Whether the app delivered a purchase that works (Send Consumption Information V2).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct DeliveryStatus: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Delivered and working.
    public static let delivered = DeliveryStatus(rawValue: "DELIVERED")

    /// Not delivered because of a quality issue.
    public static let undeliveredQualityIssue = DeliveryStatus(rawValue: "UNDELIVERED_QUALITY_ISSUE")

    /// The wrong item was delivered.
    public static let undeliveredWrongItem = DeliveryStatus(rawValue: "UNDELIVERED_WRONG_ITEM")

    /// Not delivered because of a server outage.
    public static let undeliveredServerOutage = DeliveryStatus(rawValue: "UNDELIVERED_SERVER_OUTAGE")

    /// Not delivered for another reason.
    public static let undeliveredOther = DeliveryStatus(rawValue: "UNDELIVERED_OTHER")

    public static let known: [DeliveryStatus] = [
        .delivered, .undeliveredQualityIssue, .undeliveredWrongItem, .undeliveredServerOutage,
        .undeliveredOther,
    ]
}
