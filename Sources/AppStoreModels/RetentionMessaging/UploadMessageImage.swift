/// An image shown in a retention message.
public struct UploadMessageImage: Codable, Hashable, Sendable {
    /// The identifier of an uploaded image (a UUID string).
    public var imageIdentifier: String

    /// Alternative text for accessibility (at most 150 characters).
    public var altText: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(imageIdentifier: String, altText: String) {
        self.imageIdentifier = imageIdentifier
        self.altText = altText
    }
}
