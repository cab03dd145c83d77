/// The review state of an uploaded retention-message image.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct ImageState: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Awaiting review.
    public static let pending = ImageState(rawValue: "PENDING")

    /// Approved.
    public static let approved = ImageState(rawValue: "APPROVED")

    /// Rejected.
    public static let rejected = ImageState(rawValue: "REJECTED")

    public static let known: [ImageState] = [
        .pending, .approved, .rejected,
    ]
}
