/// The size class of a retention-message image.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct ImageSize: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A full-size image.
    public static let fullSize = ImageSize(rawValue: "FULL_SIZE")

    /// A bullet-point icon.
    public static let bulletPoint = ImageSize(rawValue: "BULLET_POINT")

    public static let known: [ImageSize] = [
        .fullSize, .bulletPoint,
    ]
}
