/// The version of the Get Transaction History endpoint (the path segment).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct GetTransactionHistoryVersion: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Version 1, deprecated by Apple.
    public static let v1 = GetTransactionHistoryVersion(rawValue: "v1")

    /// Version 2.
    public static let v2 = GetTransactionHistoryVersion(rawValue: "v2")

    public static let known: [GetTransactionHistoryVersion] = [
        .v1, .v2,
    ]
}
