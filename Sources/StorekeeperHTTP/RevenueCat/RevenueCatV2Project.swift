import Foundation
import StorekeeperApps
import SubscriptionEngine

/// A RevenueCat project as Storekeeper serves it: the configured apps whose RevenueCat project
/// id it is (``AppDirectory/revenueCatProject(_:)``), in id order, and the v2 ids of what they
/// hold.
///
/// Ids are stable and derived from Storekeeper's identifiers, so GET by id needs no table:
///
/// | v2 object | id |
/// |---|---|
/// | entitlement (project-wide) | `entl_<entitlement identifier>` |
/// | product (per app) | `prod_<app id>:<App Store product id>` |
/// | offering | `ofrng_<app id>:<offering id>` |
/// | package | `pkge_<app id>:<offering id>:<package id>` |
/// | subscription (a chain) | `sub_<app id>:<original transaction id>` |
/// | purchase (not a subscription) | `purch_<app id>:<transaction id>` |
///
/// App ids and offering ids hold no `:` (configuration and the offerings document refuse it),
/// so the last part may be any text.
package struct RevenueCatV2Project: Sendable {
    package let id: String
    package let apps: [AppRuntime]
    /// When Storekeeper first recorded each app: the creation time of what its configuration
    /// defines (catalog products and entitlements), which have no time of their own.
    package let appsRecordedAt: [String: Date]
    /// Where the v2 routes are served (`/revenuecat`): `url` and `next_page` are paths from the
    /// server's root, as RevenueCat's are from its host's, so a client that resolves them
    /// against the host it called reaches them.
    package var pathPrefix: String

    package init(id: String, apps: [AppRuntime], appsRecordedAt: [String: Date], pathPrefix: String = "") {
        self.id = id
        self.apps = apps
        self.appsRecordedAt = appsRecordedAt
        self.pathPrefix = pathPrefix
    }

    /// The v2 path of `suffix` in this project, as `url` and `next_page` name it.
    package func path(_ suffix: String) -> String {
        pathPrefix + "/v2/projects/" + RevenueCatV2Page.pathEscaped(id) + (suffix.isEmpty ? "" : "/" + suffix)
    }

    package func app(_ appId: String) -> AppRuntime? { apps.first { $0.id == appId } }

    /// The RevenueCat app id of `app` (configured, else Storekeeper's app id).
    package static func revenueCatAppId(_ app: AppRuntime) -> String {
        app.configuration.revenueCat?.revenueCatAppId ?? app.id
    }

    package func recordedAt(_ app: AppRuntime) -> Int64 {
        RevenueCatV2.ms(appsRecordedAt[app.id] ?? Date(timeIntervalSince1970: 0))
    }

    // MARK: - Ids

    package static func entitlementId(_ identifier: String) -> String { "entl_" + identifier }
    package static func productId(_ app: AppRuntime, _ productId: String) -> String { "prod_\(app.id):\(productId)" }
    package static func offeringId(_ app: AppRuntime, _ offering: String) -> String { "ofrng_\(app.id):\(offering)" }
    package static func packageId(_ app: AppRuntime, _ offering: String, _ package: String) -> String {
        "pkge_\(app.id):\(offering):\(package)"
    }
    package static func subscriptionId(_ app: AppRuntime, _ chain: String) -> String { "sub_\(app.id):\(chain)" }
    package static func purchaseId(_ app: AppRuntime, _ transactionId: String) -> String { "purch_\(app.id):\(transactionId)" }

    /// The app and the `parts` parts of an id made with `prefix`; `nil` when the id is not one
    /// of this project's.
    package func parse(_ id: String, prefix: String, parts: Int) -> (app: AppRuntime, parts: [String])? {
        guard id.hasPrefix(prefix) else { return nil }
        let pieces = id.dropFirst(prefix.count).split(separator: ":", maxSplits: parts, omittingEmptySubsequences: false).map(String.init)
        guard pieces.count == parts + 1, !pieces.contains(where: \.isEmpty), let app = app(pieces[0]) else { return nil }
        return (app, Array(pieces.dropFirst()))
    }

    // MARK: - Catalog

    /// Every product of the project's catalogs: apps in id order, each catalog in its order.
    package var products: [RevenueCatV2.Product] {
        apps.flatMap { app in app.catalog.products.map { product(app, $0) } }
    }

    package func product(_ app: AppRuntime, _ product: CatalogProduct, expandApp: Bool = false) -> RevenueCatV2.Product {
        let subscription = product.type == .autoRenewable
        return RevenueCatV2.Product(
            id: Self.productId(app, product.productId), storeIdentifier: product.productId, type: subscription ? "subscription" : "one_time",
            createdAt: recordedAt(app), appId: Self.revenueCatAppId(app), displayName: nil,
            subscription: subscription ? .init(duration: product.subscriptionPeriod?.description) : nil,
            oneTime: subscription ? nil : .init(isConsumable: product.type == .consumable),
            app: expandApp ? self.app(app) : nil)
    }

    /// The product a v2 product id names, when the app's catalog has it.
    package func product(id: String, expandApp: Bool = false) -> RevenueCatV2.Product? {
        guard let (app, parts) = parse(id, prefix: "prod_", parts: 1), let found = app.catalog.product(parts[0]) else { return nil }
        return product(app, found, expandApp: expandApp)
    }

    package func app(_ app: AppRuntime) -> RevenueCatV2.App {
        RevenueCatV2.App(
            id: Self.revenueCatAppId(app), name: app.id, createdAt: recordedAt(app), projectId: id,
            appStore: .init(bundleId: app.configuration.bundleId))
    }

    /// The entitlement identifiers the catalogs grant, sorted, each with the products (apps in
    /// id order) that grant it. Consumables grant none.
    package var entitlementProducts: [(identifier: String, products: [RevenueCatV2.Product])] {
        var granted: [String: [RevenueCatV2.Product]] = [:]
        for app in apps {
            for product in app.catalog.products where product.type != .consumable {
                for identifier in app.catalog.entitlements(of: product.productId) {
                    granted[identifier, default: []].append(self.product(app, product))
                }
            }
        }
        return granted.keys.sorted().map { ($0, granted[$0] ?? []) }
    }

    /// The v2 entitlement `identifier`, its products listed when `products` is given.
    package func entitlement(
        _ identifier: String, products: [RevenueCatV2.Product]? = nil, grantedBy apps: [AppRuntime]? = nil
    )
        -> RevenueCatV2.Entitlement
    {
        let id = Self.entitlementId(identifier)
        let created = (apps ?? self.apps).map(recordedAt).min() ?? 0
        return RevenueCatV2.Entitlement(
            projectId: self.id, id: id, lookupKey: identifier, displayName: identifier, createdAt: created,
            products: products.map { RevenueCatV2.List(items: $0, url: path("entitlements/\(RevenueCatV2Page.pathEscaped(id))/products")) })
    }

    /// The v2 entitlements `productId` grants in `app` (what a subscription or purchase lists).
    package func entitlements(of productId: String, in app: AppRuntime, kind: ProductKind?) -> [RevenueCatV2.Entitlement] {
        guard kind != .consumable else { return [] }
        return app.catalog.entitlements(of: productId).map { entitlement($0, grantedBy: [app]) }
    }
}
