/// A bullet point in a retention message.
public struct BulletPoint: Codable, Hashable, Sendable {
    /// The text.
    public var text: String

    /// The identifier of the bullet's icon image (a UUID string).
    public var imageIdentifier: String

    /// Alternative text for the icon.
    public var altText: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(text: String, imageIdentifier: String, altText: String) {
        self.text = text
        self.imageIdentifier = imageIdentifier
        self.altText = altText
    }
}
