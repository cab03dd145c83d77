/// The review state of an uploaded retention message.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct MessageState: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Awaiting review.
    public static let pending = MessageState(rawValue: "PENDING")

    /// Approved.
    public static let approved = MessageState(rawValue: "APPROVED")

    /// Rejected.
    public static let rejected = MessageState(rawValue: "REJECTED")

    public static let known: [MessageState] = [
        .pending, .approved, .rejected,
    ]
}
