import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperStore
import SubscriptionAnalytics

/// v2's entitlements and products (from the apps' catalogs), offerings and packages (from each
/// app's offerings document in force) and the overview metrics (from Storekeeper's figures).
///
/// - Entitlements are project-wide, one per identifier any catalog grants.
/// - An offering is current (`is_current`) when it is its app's default: the default of the
///   placement `default`, else of the first paywall placement, else the document's first
///   offering. A project of several apps has one current offering per app.
/// - An offering's and its packages' `created_at` is when the document version in force was
///   saved; a catalog item's is when Storekeeper first recorded its app.
extension StorekeeperAPI {
    func addRevenueCatV2CatalogRoutes(to project: RouterGroup<APIRequestContext>) {
        project.get("entitlements", use: v2Entitlements)
            .get("entitlements/:entitlementId", use: v2Entitlement)
            .get("entitlements/:entitlementId/products", use: v2EntitlementProducts)
            .get("products", use: v2Products)
            .get("products/:productId", use: v2Product)
            .get("offerings", use: v2Offerings)
            .get("offerings/:offeringId", use: v2Offering)
            .get("offerings/:offeringId/packages", use: v2Packages)
            .get("packages/:packageId", use: v2Package)
            .get("packages/:packageId/products", use: v2PackageProducts)
            .get("metrics/overview", use: v2OverviewMetrics)
    }

    // MARK: - Entitlements and products

    func v2Entitlements(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Entitlement> {
        let expand = try Self.revenueCatV2Expand(request, allowed: ["items.product"]).contains("items.product")
        let page = try RevenueCatV2Page(request)
        let project = try await revenueCatV2Project(context)
        let items = project.entitlementProducts.map { project.entitlement($0.identifier, products: expand ? $0.products : nil) }
        return try page.list(items, id: \.id, path: project.path("entitlements"))
    }

    /// The entitlement a v2 id names and the products that grant it.
    private func revenueCatV2Entitlement(
        _ project: RevenueCatV2Project, _ context: APIRequestContext
    ) throws -> (
        identifier: String, products: [RevenueCatV2.Product]
    ) {
        let id = try context.pathParameter("entitlementId")
        guard id.hasPrefix("entl_"), let found = project.entitlementProducts.first(where: { $0.identifier == id.dropFirst(5) }) else {
            throw RevenueCatV2Error.missing("entitlement", param: "entitlement_id")
        }
        return found
    }

    func v2Entitlement(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.Entitlement {
        let expand = try Self.revenueCatV2Expand(request, allowed: ["product"]).contains("product")
        let project = try await revenueCatV2Project(context)
        let found = try revenueCatV2Entitlement(project, context)
        return project.entitlement(found.identifier, products: expand ? found.products : nil)
    }

    func v2EntitlementProducts(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Product> {
        let page = try RevenueCatV2Page(request)
        let project = try await revenueCatV2Project(context)
        let found = try revenueCatV2Entitlement(project, context)
        let path = project.path("entitlements/\(RevenueCatV2Page.pathEscaped(RevenueCatV2Project.entitlementId(found.identifier)))/products")
        return try page.list(found.products, id: \.id, path: path)
    }

    func v2Products(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Product> {
        let expand = try Self.revenueCatV2Expand(request, allowed: ["items.app"]).contains("items.app")
        let page = try RevenueCatV2Page(request)
        let project = try await revenueCatV2Project(context)
        let appId = request.uri.queryParameters.get("app_id")
        let items = project.apps.filter { appId == nil || RevenueCatV2Project.revenueCatAppId($0) == appId }
            .flatMap { app in app.catalog.products.map { project.product(app, $0, expandApp: expand) } }
        return try page.list(items, id: \.id, path: project.path("products"))
    }

    func v2Product(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.Product {
        let expand = try Self.revenueCatV2Expand(request, allowed: ["app"]).contains("app")
        let project = try await revenueCatV2Project(context)
        guard let product = project.product(id: try context.pathParameter("productId"), expandApp: expand) else {
            throw RevenueCatV2Error.missing("product", param: "product_id")
        }
        return product
    }

    // MARK: - Offerings and packages

    /// One offering of one app's document in force.
    struct RevenueCatV2OfferingSource {
        var app: AppRuntime
        var offering: OfferingsDocument.Offering
        var isCurrent: Bool
        var createdAt: Int64
    }

    /// Every offering of the project: apps in id order, each document's offerings in order.
    func revenueCatV2Offerings(_ project: RevenueCatV2Project) async throws -> [RevenueCatV2OfferingSource] {
        var sources: [RevenueCatV2OfferingSource] = []
        for app in project.apps {
            let (version, document) = try await offerings(app: app)
            let placement = document.placement("default") ?? document.placements.first { $0.kind == .paywall }
            let current = placement?.defaultOffering ?? document.offerings.first?.id
            let created = version.map { RevenueCatV2.ms($0.createdAt) } ?? project.recordedAt(app)
            sources += document.offerings.map { RevenueCatV2OfferingSource(app: app, offering: $0, isCurrent: $0.id == current, createdAt: created) }
        }
        return sources
    }

    func revenueCatV2Offering(
        _ project: RevenueCatV2Project, _ source: RevenueCatV2OfferingSource, packages: Bool, products: Bool
    )
        -> RevenueCatV2.Offering
    {
        let id = RevenueCatV2Project.offeringId(source.app, source.offering.id)
        var name = source.offering.id
        if case .object(let metadata)? = source.offering.metadata, case .string(let text)? = metadata["displayName"] ?? metadata["display_name"] {
            name = text
        }
        let list = packages ? revenueCatV2Packages(project, source, products: products) : nil
        return RevenueCatV2.Offering(
            id: id, lookupKey: source.offering.id, displayName: name, isCurrent: source.isCurrent, createdAt: source.createdAt,
            projectId: project.id, metadata: source.offering.metadata,
            packages: list.map { RevenueCatV2.List(items: $0, url: project.path("offerings/\(RevenueCatV2Page.pathEscaped(id))/packages")) })
    }

    func revenueCatV2Packages(_ project: RevenueCatV2Project, _ source: RevenueCatV2OfferingSource, products: Bool) -> [RevenueCatV2.Package] {
        source.offering.packages.enumerated().map { position, package in
            let id = RevenueCatV2Project.packageId(source.app, source.offering.id, package.id)
            return RevenueCatV2.Package(
                id: id, lookupKey: package.id, displayName: package.id, position: position + 1, createdAt: source.createdAt,
                products: products
                    ? RevenueCatV2.List(
                        items: revenueCatV2PackageProducts(project, source.app, package),
                        url: project.path("packages/\(RevenueCatV2Page.pathEscaped(id))/products"))
                    : nil)
        }
    }

    func revenueCatV2PackageProducts(
        _ project: RevenueCatV2Project, _ app: AppRuntime, _ package: OfferingsDocument.Package
    )
        -> [RevenueCatV2.PackageProduct]
    {
        guard let product = app.catalog.product(package.productId) else { return [] }
        return [RevenueCatV2.PackageProduct(product: project.product(app, product))]
    }

    func v2Offerings(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Offering> {
        let expand = try Self.revenueCatV2Expand(request, allowed: ["items.package", "items.package.product"])
        let page = try RevenueCatV2Page(request)
        let project = try await revenueCatV2Project(context)
        let products = expand.contains("items.package.product")
        let items = try await revenueCatV2Offerings(project).map {
            revenueCatV2Offering(project, $0, packages: products || expand.contains("items.package"), products: products)
        }
        return try page.list(items, id: \.id, path: project.path("offerings"))
    }

    private func revenueCatV2OfferingSource(_ project: RevenueCatV2Project, _ context: APIRequestContext) async throws -> RevenueCatV2OfferingSource {
        let id = try context.pathParameter("offeringId")
        guard let source = try await revenueCatV2Offerings(project).first(where: { RevenueCatV2Project.offeringId($0.app, $0.offering.id) == id })
        else {
            throw RevenueCatV2Error.missing("offering", param: "offering_id")
        }
        return source
    }

    func v2Offering(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.Offering {
        let expand = try Self.revenueCatV2Expand(request, allowed: ["package", "package.product"])
        let project = try await revenueCatV2Project(context)
        let source = try await revenueCatV2OfferingSource(project, context)
        let products = expand.contains("package.product")
        return revenueCatV2Offering(project, source, packages: products || expand.contains("package"), products: products)
    }

    func v2Packages(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Package> {
        let expand = try Self.revenueCatV2Expand(request, allowed: ["items.product"]).contains("items.product")
        let page = try RevenueCatV2Page(request)
        let project = try await revenueCatV2Project(context)
        let source = try await revenueCatV2OfferingSource(project, context)
        let path = project.path("offerings/\(RevenueCatV2Page.pathEscaped(RevenueCatV2Project.offeringId(source.app, source.offering.id)))/packages")
        return try page.list(revenueCatV2Packages(project, source, products: expand), id: \.id, path: path)
    }

    /// The package a v2 id names, in its offering.
    private func revenueCatV2Package(
        _ project: RevenueCatV2Project, _ context: APIRequestContext, products: Bool
    ) async throws -> (
        package: RevenueCatV2.Package, products: [RevenueCatV2.PackageProduct]
    ) {
        let id = try context.pathParameter("packageId")
        if let (app, parts) = project.parse(id, prefix: "pkge_", parts: 2),
            let source = try await revenueCatV2Offerings(project).first(where: { $0.app.id == app.id && $0.offering.id == parts[0] }),
            let position = source.offering.packages.firstIndex(where: { $0.id == parts[1] })
        {
            return (
                revenueCatV2Packages(project, source, products: products)[position],
                revenueCatV2PackageProducts(project, app, source.offering.packages[position])
            )
        }
        throw RevenueCatV2Error.missing("package", param: "package_id")
    }

    func v2Package(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.Package {
        let expand = try Self.revenueCatV2Expand(request, allowed: ["product"]).contains("product")
        return try await revenueCatV2Package(try await revenueCatV2Project(context), context, products: expand).package
    }

    func v2PackageProducts(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.PackageProduct> {
        let page = try RevenueCatV2Page(request)
        let project = try await revenueCatV2Project(context)
        let found = try await revenueCatV2Package(project, context, products: false)
        return try page.list(
            found.products, id: \.product.id, path: project.path("packages/\(RevenueCatV2Page.pathEscaped(found.package.id))/products"))
    }

    // MARK: - Metrics

    /// The overview metrics, each Storekeeper's own figure, summed over the project's apps; in
    /// production, or in the sandbox with `environment=sandbox` (a Storekeeper extension, as on
    /// v2's subscription and purchase lists):
    ///
    /// - `active_subscriptions` (`P0D`): the snapshot's `activeSubscriptions` now (paid,
    ///   purchaser-owned chains with access, grace included; trials and grants excluded).
    /// - `active_trials` (`P0D`): the snapshot's `activeTrials` (chains with access in a free trial).
    /// - `mrr` (`P0D`): the snapshot's `mrr` in the reporting currency (gross of commission).
    /// - `revenue` (`P28D`): the `revenue` series over the 28 days before now (prices of the
    ///   transactions bought in it, gross, in the reporting currency).
    ///
    /// Money is shown only when every app of the project reports in one currency. RevenueCat's
    /// `new_customers` and `active_users` are not shown: Storekeeper keeps no such figure.
    func v2OverviewMetrics(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.OverviewMetrics {
        let environment = try Self.revenueCatV2Environment(request) == "sandbox" ? "Sandbox" : "Production"
        let project = try await revenueCatV2Project(context)
        let now = clock()
        let (active, trials, mrr, revenue) = try await revenueCatV2Figures(project, environment: environment, now: now)
        let updated = RevenueCatV2.ms(now)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let stamp = iso.string(from: now)
        func metric(
            _ id: String, _ name: String, _ description: String, _ unit: String, _ period: String, _ value: Decimal
        ) -> RevenueCatV2.OverviewMetric {
            RevenueCatV2.OverviewMetric(
                id: id, name: name, description: description, unit: unit, period: period, value: value, lastUpdatedAt: updated,
                lastUpdatedAtIso8601: stamp)
        }
        var metrics = [
            metric(
                "active_subscriptions", "Active Subscriptions", "Paid subscriptions with access now (grace periods included; trials not)", "#", "P0D",
                Decimal(active)),
            metric("active_trials", "Active Trials", "Free trials with access now", "#", "P0D", Decimal(trials)),
        ]
        let currencies = Set(project.apps.map(\.configuration.analytics.reportingCurrency))
        if currencies.count == 1, let currency = currencies.first {
            let unit = currency == "USD" ? "$" : currency
            metrics.append(metric("mrr", "MRR", "Monthly recurring revenue of the active subscriptions, gross", unit, "P0D", mrr))
            metrics.append(metric("revenue", "Revenue", "Revenue of the transactions of the last 28 days, gross", unit, "P28D", revenue))
        }
        return RevenueCatV2.OverviewMetrics(metrics: metrics)
    }

    /// The project's snapshot counts and MRR at `now` and its revenue of the 28 days before,
    /// each the sum of its apps' figures in `environment`.
    private func revenueCatV2Figures(
        _ project: RevenueCatV2Project, environment: String, now: Date
    ) async throws -> (
        active: Int, trials: Int, mrr: Decimal, revenue: Decimal
    ) {
        var (active, trials, mrr, revenue): (Int, Int, Decimal, Decimal) = (0, 0, 0, 0)
        for app in project.apps {
            let configuration = app.configuration.analytics
            let sums = try await figureSums(of: app.configuration, environment: environment)
            let snapshot = try await sums.snapshotSums(group: "", at: [now])[0].snapshot(at: now, configuration: configuration)
            let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: configuration, environment: environment)
            let window = DateInterval(start: now.addingTimeInterval(-28 * 86_400), end: now)
            let points = try await analytics.series(.revenue, over: [window], now: now, from: sums)
            active += snapshot.activeSubscriptions
            trials += snapshot.activeTrials
            mrr += snapshot.mrr
            revenue += points.first?.value ?? 0
        }
        return (active, trials, mrr, revenue)
    }
}
