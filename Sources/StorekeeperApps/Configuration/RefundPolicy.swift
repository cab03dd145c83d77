import AppStoreModels
import Foundation

/// How an app answers Apple's `CONSUMPTION_REQUEST` (a customer asked for a refund): the
/// refund preference sent with Send Consumption Information, or no answer at all.
public struct RefundPolicy: RawRepresentable, Sendable, Codable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Ask Apple to decline the refund.
    public static let decline = RefundPolicy(rawValue: "decline")
    /// Ask Apple to grant it in full.
    public static let grantFull = RefundPolicy(rawValue: "grantFull")
    /// Ask Apple to grant the unused part.
    public static let grantProrated = RefundPolicy(rawValue: "grantProrated")
    /// Send nothing (Apple decides alone); the request is still recorded.
    public static let doNotAnswer = RefundPolicy(rawValue: "doNotAnswer")
    /// Every policy Storekeeper knows.
    public static let known: [RefundPolicy] = [.decline, .grantFull, .grantProrated, .doNotAnswer]

    /// The preference to send, or `nil` to send nothing (``doNotAnswer`` and unknown values).
    public var refundPreference: RefundPreference? {
        switch self {
        case .decline: .decline
        case .grantFull: .grantFull
        case .grantProrated: .grantProrated
        default: nil
        }
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
