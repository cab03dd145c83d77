import Foundation

/// What the customer may be offered for a product.
public struct ProductEligibility: Sendable, Hashable, Codable {
    public var introductoryOffer: Bool
    public var promotionalOffer: Bool
    public var winBackOfferIds: [String]
}

extension Storekeeper {
    struct CustomerAnswer: Decodable {
        struct Group: Decodable {
            var introductoryOffer: Bool
            var promotionalOffer: Bool
            var eligibleWinBackOfferIds: [String]?
        }
        var eligibility: [String: Group]
    }

    /// The customer's eligibility for the products' offers, decided by the server from the whole
    /// purchase history (per subscription group); products that are not subscriptions are left out.
    public func eligibility(for productIds: [String]) async throws -> [String: ProductEligibility] {
        let products: [StoreProduct]
        do {
            products = try await store.products(for: productIds)
        } catch {
            throw StorekeeperError(.store, "the App Store did not answer the products: \(error)")
        }
        var groups: [String: CustomerAnswer.Group] = [:]
        do {
            groups = try server.decode(CustomerAnswer.self, try await server.call("GET", ["customers", customerId])).eligibility
        } catch let error as StorekeeperError where error.status == 404 {
            groups = [:]  // a customer the server has not met: never subscribed
        }
        var answer: [String: ProductEligibility] = [:]
        for product in products where product.kind == .autoRenewable {
            let group = product.subscriptionGroupId.flatMap { groups[$0] }
            answer[product.id] = ProductEligibility(
                introductoryOffer: group?.introductoryOffer ?? true, promotionalOffer: group?.promotionalOffer ?? false,
                winBackOfferIds: group?.eligibleWinBackOfferIds ?? [])
        }
        return answer
    }
}
