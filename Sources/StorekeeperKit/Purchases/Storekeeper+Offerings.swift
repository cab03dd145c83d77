import Foundation

/// What a placement shows the customer, as the server chose it (targeting rules, experiments).
public struct PlacementOffering: Sendable, Hashable, Codable {
    public struct Package: Sendable, Hashable, Codable {
        public struct Eligibility: Sendable, Hashable, Codable {
            public var introductoryOffer: Bool
            public var promotionalOffer: Bool
        }
        public var id: String
        public var productId: String
        public var eligibility: Eligibility?
    }

    public var placement: String
    /// The offerings version the server answered from.
    public var version: Int
    public var offeringId: String
    public var packages: [Package]
    /// The offering's paywall metadata, as JSON.
    public var metadata: Data?
    /// What chose it: `kind` is `experiment` (with `experiment` and `variant`), `rule` (with
    /// `rule`) or `default`.
    public var chosenBy: [String: String]
    /// `server`, or `cache` when the server could not be reached.
    public var source: CustomerInfo.Source
}

extension Storekeeper {
    /// The offering `placement` shows the customer now, fetched from the server (a change of
    /// targeting or an experiment applies at the next fetch) and kept per placement for when the
    /// server cannot be reached.
    public func offering(
        placement: String, storefront: String? = nil, appVersion: String? = nil, attributes: [String: String] = [:]
    ) async throws -> PlacementOffering {
        var query = [URLQueryItem(name: "placement", value: placement)]
        if let storefront { query.append(URLQueryItem(name: "storefront", value: storefront)) }
        if let appVersion { query.append(URLQueryItem(name: "appVersion", value: appVersion)) }
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) { query.append(URLQueryItem(name: "attribute.\(name)", value: value)) }
        let file = configuration.stateDirectory.appendingPathComponent("offerings.json")
        var cached = (try? JSONDecoder().decode([String: PlacementOffering].self, from: Data(contentsOf: file))) ?? [:]
        do {
            let data = try await server.call("GET", ["customers", customerId, "offerings"], query: query)
            let offering = try Self.placementOffering(data)
            cached[placement] = offering
            try? FileManager.default.createDirectory(at: configuration.stateDirectory, withIntermediateDirectories: true)
            try? JSONEncoder().encode(cached).write(to: file, options: .atomic)
            return offering
        } catch let error as StorekeeperError where error.isTransient {
            guard var offering = cached[placement] else { throw error }
            offering.source = .cache
            return offering
        }
    }

    static func placementOffering(_ data: Data) throws -> PlacementOffering {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let placement = object["placement"] as? String, let version = object["version"] as? Int,
            let offering = object["offering"] as? [String: Any], let id = offering["id"] as? String,
            let packages = offering["packages"] as? [[String: Any]]
        else { throw StorekeeperError(.invalidAnswer, "the server's offering is not readable") }
        let metadata = offering["metadata"].flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.fragmentsAllowed, .sortedKeys]) }
        return PlacementOffering(
            placement: placement, version: version, offeringId: id,
            packages: packages.compactMap { package in
                guard let id = package["id"] as? String, let product = package["productId"] as? String else { return nil }
                let eligibility = (package["eligibility"] as? [String: Bool]).map {
                    PlacementOffering.Package.Eligibility(
                        introductoryOffer: $0["introductoryOffer"] ?? false, promotionalOffer: $0["promotionalOffer"] ?? false)
                }
                return PlacementOffering.Package(id: id, productId: product, eligibility: eligibility)
            }, metadata: metadata, chosenBy: object["chosenBy"] as? [String: String] ?? [:], source: .server)
    }
}
