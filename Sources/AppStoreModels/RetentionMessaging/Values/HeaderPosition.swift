/// Where a retention message's header appears.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct HeaderPosition: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Above the body text.
    public static let aboveBody = HeaderPosition(rawValue: "ABOVE_BODY")

    /// Above the image (requires an image).
    public static let aboveImage = HeaderPosition(rawValue: "ABOVE_IMAGE")

    public static let known: [HeaderPosition] = [
        .aboveBody, .aboveImage,
    ]
}
