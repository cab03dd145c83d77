import Foundation

/// The filters of Get Transaction History, sent as query parameters (not a JSON body).
///
/// `queryItems(revision:)` gives the parameters in Apple's names; list-valued filters repeat
/// the parameter once per value, and dates are whole milliseconds since 1970.
public struct TransactionHistoryRequest: Hashable, Sendable {
    /// Only transactions purchased at or after this date.
    public var startDate: Date?

    /// Only transactions purchased before this date.
    public var endDate: Date?

    /// Only transactions of these products.
    public var productIds: [String]?

    /// Only transactions of these product types.
    public var productTypes: [ProductType]?

    /// The order of transactions by modification date.
    public var sort: Order?

    /// Only transactions in these subscription groups.
    public var subscriptionGroupIdentifiers: [String]?

    /// Only purchased or only family-shared transactions.
    public var inAppOwnershipType: InAppOwnershipType?

    /// Only revoked (`true`) or only non-revoked (`false`) transactions.
    public var revoked: Bool?

    /// Creates a filter; every criterion defaults to absent.
    public init(
        startDate: Date? = nil,
        endDate: Date? = nil,
        productIds: [String]? = nil,
        productTypes: [ProductType]? = nil,
        sort: Order? = nil,
        subscriptionGroupIdentifiers: [String]? = nil,
        inAppOwnershipType: InAppOwnershipType? = nil,
        revoked: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.productIds = productIds
        self.productTypes = productTypes
        self.sort = sort
        self.subscriptionGroupIdentifiers = subscriptionGroupIdentifiers
        self.inAppOwnershipType = inAppOwnershipType
        self.revoked = revoked
    }

    /// The query parameters for this filter, in Apple's parameter order, with the page token
    /// from the previous response's `revision` when given.
    public func queryItems(revision: String? = nil) -> [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let revision { items.append(URLQueryItem(name: "revision", value: revision)) }
        if let startDate {
            items.append(URLQueryItem(name: "startDate", value: String(startDate.appStoreMilliseconds)))
        }
        if let endDate {
            items.append(URLQueryItem(name: "endDate", value: String(endDate.appStoreMilliseconds)))
        }
        for productId in productIds ?? [] { items.append(URLQueryItem(name: "productId", value: productId)) }
        for productType in productTypes ?? [] {
            items.append(URLQueryItem(name: "productType", value: productType.rawValue))
        }
        if let sort { items.append(URLQueryItem(name: "sort", value: sort.rawValue)) }
        for group in subscriptionGroupIdentifiers ?? [] {
            items.append(URLQueryItem(name: "subscriptionGroupIdentifier", value: group))
        }
        if let inAppOwnershipType {
            items.append(URLQueryItem(name: "inAppOwnershipType", value: inAppOwnershipType.rawValue))
        }
        if let revoked { items.append(URLQueryItem(name: "revoked", value: String(revoked))) }
        return items
    }
}

extension TransactionHistoryRequest {
    /// The order of a transaction-history page by modification date (`sort` query parameter).
    ///
    /// An open set: values Apple adds later keep their raw value.
    public struct Order: AppStoreOpenValue {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Oldest first.
        public static let ascending = Order(rawValue: "ASCENDING")

        /// Newest first.
        public static let descending = Order(rawValue: "DESCENDING")

        public static let known: [Order] = [.ascending, .descending]
    }
}
