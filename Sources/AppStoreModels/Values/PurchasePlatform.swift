/// The platform on which the customer originally bought the app (`originalPlatform`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct PurchasePlatform: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// iOS, iPadOS or macOS on Apple silicon.
    public static let iOS = PurchasePlatform(rawValue: "iOS")

    /// macOS.
    public static let macOS = PurchasePlatform(rawValue: "macOS")

    /// tvOS.
    public static let tvOS = PurchasePlatform(rawValue: "tvOS")

    /// visionOS.
    public static let visionOS = PurchasePlatform(rawValue: "visionOS")

    public static let known: [PurchasePlatform] = [
        .iOS, .macOS, .tvOS, .visionOS,
    ]
}
