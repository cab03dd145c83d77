/// An uploaded retention-message image and its review state.
public struct GetImageListResponseItem: Codable, Hashable, Sendable {
    /// The image identifier (a UUID string).
    public var imageIdentifier: String?

    /// The review state.
    public var imageState: ImageState?

    /// The size class.
    public var imageSize: ImageSize?

    /// Creates a value from its fields; optional fields default to absent.
    public init(imageIdentifier: String? = nil, imageState: ImageState? = nil, imageSize: ImageSize? = nil) {
        self.imageIdentifier = imageIdentifier
        self.imageState = imageState
        self.imageSize = imageSize
    }
}
