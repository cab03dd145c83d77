/// The body of Upload Message: the text, optional image and bullet points of a retention message.
public struct UploadMessageRequestBody: Codable, Hashable, Sendable {
    /// The header (at most 66 characters).
    public var header: String

    /// The body (at most 144 characters).
    public var body: String

    /// An approved image to show.
    public var image: UploadMessageImage?

    /// Where the header appears.
    public var headerPosition: HeaderPosition?

    /// Bullet points to show.
    public var bulletPoints: [BulletPoint]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        header: String,
        body: String,
        image: UploadMessageImage? = nil,
        headerPosition: HeaderPosition? = nil,
        bulletPoints: [BulletPoint]? = nil
    ) {
        self.header = header
        self.body = body
        self.image = image
        self.headerPosition = headerPosition
        self.bulletPoints = bulletPoints
    }
}
