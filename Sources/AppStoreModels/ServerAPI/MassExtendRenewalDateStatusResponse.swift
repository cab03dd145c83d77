import Foundation

/// The progress of a renewal-date extension for all subscribers (Get Status of Subscription Renewal Date
/// Extensions).
public struct MassExtendRenewalDateStatusResponse: Codable, Hashable, Sendable {
    /// The identifier of the request, as you supplied it.
    public var requestIdentifier: String?

    /// Whether Apple finished processing the request.
    public var complete: Bool?

    /// When processing finished.
    @AppStoreDate public var completeDate: Date?

    /// The number of subscriptions successfully extended.
    public var succeededCount: Int64?

    /// The number of subscriptions that could not be extended.
    public var failedCount: Int64?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        requestIdentifier: String? = nil,
        complete: Bool? = nil,
        completeDate: Date? = nil,
        succeededCount: Int64? = nil,
        failedCount: Int64? = nil
    ) {
        self.requestIdentifier = requestIdentifier
        self.complete = complete
        self.completeDate = completeDate
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}
