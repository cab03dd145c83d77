import AppStoreModels
import Foundation
import Hummingbird

extension TransactionHistoryRequest {
    /// Reads Get Transaction History's query parameters as Apple does, refusing values Apple
    /// refuses with its error codes.
    init(simulatorQuery query: Parameters) throws {
        self.init()
        if let text = query.get("startDate") {
            guard let date = Self.date(text) else { throw SimulatorAPIError(.invalidStartDate, "Invalid request. The start date is invalid.") }
            startDate = date
        }
        if let text = query.get("endDate") {
            guard let date = Self.date(text) else { throw SimulatorAPIError(.invalidEndDate, "Invalid request. The end date is invalid.") }
            endDate = date
        }
        if let startDate, let endDate, startDate > endDate {
            throw SimulatorAPIError(.startDateAfterEndDate, "Invalid request. The end date precedes the start date or the dates are the same.")
        }
        let products = query.getAll("productId")
        if !products.isEmpty { productIds = products }
        let types = query.getAll("productType").map(ProductType.init(rawValue:))
        guard types.allSatisfy({ $0.isKnown }) else {
            throw SimulatorAPIError(.invalidProductType, "Invalid request. The product type parameter is invalid.")
        }
        if !types.isEmpty { productTypes = types }
        if let text = query.get("sort") {
            let order = Order(rawValue: text)
            guard order.isKnown else { throw SimulatorAPIError(.invalidSort, "Invalid request. The sort parameter is invalid.") }
            sort = order
        }
        let groups = query.getAll("subscriptionGroupIdentifier")
        if !groups.isEmpty { subscriptionGroupIdentifiers = groups }
        if let text = query.get("inAppOwnershipType") {
            let ownership = InAppOwnershipType(rawValue: text)
            guard ownership.isKnown else {
                throw SimulatorAPIError(.invalidInAppOwnershipType, "Invalid request. The in-app ownership type parameter is invalid.")
            }
            inAppOwnershipType = ownership
        }
        if let text = query.get("revoked") {
            switch text.lowercased() {
            case "true": revoked = true
            case "false": revoked = false
            default: throw SimulatorAPIError(.invalidRevoked, "Invalid request. The revoked parameter is invalid.")
            }
        }
    }

    /// Whether a transaction passes every filter (dates apply to the purchase date).
    func admits(_ transaction: JWSTransactionDecodedPayload) -> Bool {
        let purchase = transaction.purchaseDate ?? .distantPast
        if let startDate, purchase < startDate { return false }
        if let endDate, purchase >= endDate { return false }
        if let productIds, !productIds.contains(transaction.productId ?? "") { return false }
        if let productTypes {
            guard let type = transaction.type.flatMap(ProductType.init), productTypes.contains(type) else { return false }
        }
        if let groups = subscriptionGroupIdentifiers, !groups.contains(transaction.subscriptionGroupIdentifier ?? "") { return false }
        if let inAppOwnershipType, (transaction.inAppOwnershipType ?? .purchased) != inAppOwnershipType { return false }
        if let revoked, (transaction.revocationDate != nil) != revoked { return false }
        return true
    }

    private static func date(_ text: String) -> Date? {
        guard let milliseconds = Int64(text), milliseconds >= 0 else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
