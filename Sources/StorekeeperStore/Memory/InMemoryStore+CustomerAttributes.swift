import Foundation

extension InMemoryStore {
    public func customerAttributes(appId: String, customerId: String) async throws -> [CustomerAttribute] {
        (attributeRows[AppKey(appId: appId, key: customerId)] ?? [:]).values.sorted { Array($0.key.utf8).lexicographicallyPrecedes($1.key.utf8) }
    }

    public func setCustomerAttributes(appId: String, customerId: String, _ attributes: [CustomerAttribute], at: Date) async throws {
        guard !attributes.isEmpty else { return }
        try await apply(Changeset(appId: appId, at: at, links: [CustomerLink(customerId: customerId)]))
        // No suspension from here on: the check and the write see the same rows.
        let key = AppKey(appId: appId, key: customerId)
        var kept = attributeRows[key] ?? [:]
        for attribute in attributes where (kept[attribute.key]?.updatedAt ?? .distantPast) <= attribute.updatedAt {
            kept[attribute.key] = attribute
        }
        guard kept.count <= CustomerAttribute.maximumPerCustomer else {
            throw StoreError(code: .limitReached, message: "a customer keeps at most \(CustomerAttribute.maximumPerCustomer) attributes")
        }
        attributeRows[key] = kept
    }

    public func customerPage(appId: String, after: String?, limit: Int) async throws -> [String] {
        let limit = max(1, min(limit, 1000))
        let bytes = { (id: String) in Array(id.utf8) }
        let ids = customers.filter { $0.appId == appId }.map(\.key).sorted { bytes($0).lexicographicallyPrecedes(bytes($1)) }
        guard let after else { return Array(ids.prefix(limit)) }
        return Array(ids.filter { bytes(after).lexicographicallyPrecedes(bytes($0)) }.prefix(limit))
    }
}
