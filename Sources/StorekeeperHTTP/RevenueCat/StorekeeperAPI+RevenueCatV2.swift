import Foundation
import HTTPTypes
import Hummingbird
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine

extension StorekeeperAPI {
    /// RevenueCat's REST API v2 read routes, under the RevenueCat prefix: a backend that called
    /// `https://api.revenuecat.com/v2` calls `https://<host>/<prefix>/v2` with the same paths,
    /// keys and answers (docs/revenuecat-v2.md). Write routes answer a v2 405; unknown v2 paths a
    /// v2 404.
    package func addRevenueCatV2Routes(to router: RouterGroup<APIRequestContext>) {
        let v2 = router.group("v2").add(middleware: RevenueCatV2ErrorMiddleware())
        let read = v2.group().add(middleware: RevenueCatV2Authenticator(apps: apps, clock: clock))
        read.get("projects", use: v2Projects)
        let project = read.group("projects/:projectId")
        project.get("apps", use: v2Apps)
            .get("apps/:appId", use: v2App)
            .get("customers", use: v2Customers)
            .get("customers/:customerId", use: v2Customer)
            .get("customers/:customerId/active_entitlements", use: v2ActiveEntitlements)
            .get("customers/:customerId/aliases", use: v2Aliases)
            .get("customers/:customerId/attributes", use: v2Attributes)
            .get("customers/:customerId/subscriptions", use: v2CustomerSubscriptions)
            .get("customers/:customerId/purchases", use: v2CustomerPurchases)
            .get("customers/:customerId/invoices", use: v2Invoices)
            .get("subscriptions/:subscriptionId", use: v2Subscription)
            .get("subscriptions/:subscriptionId/entitlements", use: v2SubscriptionEntitlements)
            .get("purchases/:purchaseId", use: v2Purchase)
            .get("purchases/:purchaseId/entitlements", use: v2PurchaseEntitlements)
        addRevenueCatV2CatalogRoutes(to: project)
        for (method, path) in Self.revenueCatV2WriteRoutes {
            v2.on(RouterPath(path), method: method) { _, _ -> Response in throw RevenueCatV2Error.readOnly }
        }
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
            v2.on("**", method: method) { _, _ -> Response in
                throw method == .get ? RevenueCatV2Error.unknownRoute : RevenueCatV2Error.readOnly
            }
        }
    }

    /// v2's write routes (the generated client's), which Storekeeper does not serve.
    static let revenueCatV2WriteRoutes: [(HTTPRequest.Method, String)] = [
        (.post, "projects/:projectId/apps"), (.post, "projects/:projectId/apps/:appId"), (.delete, "projects/:projectId/apps/:appId"),
        (.post, "projects/:projectId/customers"), (.delete, "projects/:projectId/customers/:customerId"),
        (.post, "projects/:projectId/customers/:customerId/attributes"),
        (.post, "projects/:projectId/entitlements"), (.post, "projects/:projectId/entitlements/:entitlementId"),
        (.delete, "projects/:projectId/entitlements/:entitlementId"),
        (.post, "projects/:projectId/entitlements/:entitlementId/actions/attach_products"),
        (.post, "projects/:projectId/entitlements/:entitlementId/actions/detach_products"),
        (.post, "projects/:projectId/offerings"), (.post, "projects/:projectId/offerings/:offeringId"),
        (.delete, "projects/:projectId/offerings/:offeringId"), (.post, "projects/:projectId/offerings/:offeringId/packages"),
        (.post, "projects/:projectId/packages/:packageId"), (.delete, "projects/:projectId/packages/:packageId"),
        (.post, "projects/:projectId/packages/:packageId/actions/attach_products"),
        (.post, "projects/:projectId/packages/:packageId/actions/detach_products"),
        (.post, "projects/:projectId/products"), (.delete, "projects/:projectId/products/:productId"),
        (.post, "projects/:projectId/purchases/:purchaseId/actions/refund"),
        (.post, "projects/:projectId/subscriptions/:subscriptionId/actions/cancel"),
        (.post, "projects/:projectId/subscriptions/:subscriptionId/actions/refund"),
    ]

    /// The project the caller's key opens (the path's, checked by ``RevenueCatV2Authenticator``).
    package func revenueCatV2Project(_ context: APIRequestContext) async throws -> RevenueCatV2Project {
        let caller = try context.caller()
        let id = apps.revenueCatProjectId(of: caller.app.configuration)
        let members = apps.revenueCatProject(id)
        let recorded = Dictionary(try await store.apps().map { ($0.id, $0.createdAt) }, uniquingKeysWith: { first, _ in first })
        return RevenueCatV2Project(id: id, apps: members, appsRecordedAt: recorded, pathPrefix: "/" + revenueCatPathPrefix)
    }

    func revenueCatV2Customers(_ context: APIRequestContext) async throws -> RevenueCatV2Customers {
        RevenueCatV2Customers(project: try await revenueCatV2Project(context), store: store, now: clock())
    }

    /// The `expand` values of the request, each one of `allowed` (else a `parameter_error`).
    static func revenueCatV2Expand(_ request: Request, allowed: Set<String>) throws -> Set<String> {
        let asked = Set(request.uri.queryParameters.getAll("expand").flatMap { $0.split(separator: ",").map(String.init) })
        if let unknown = asked.subtracting(allowed).first {
            throw RevenueCatV2Error.parameter("expand", "expand may not be \(unknown.prefix(64)); one of \(allowed.sorted().joined(separator: ", "))")
        }
        return asked
    }

    /// The `environment` filter: `production`, `sandbox` or none.
    static func revenueCatV2Environment(_ request: Request) throws -> String? {
        guard let environment = request.uri.queryParameters.get("environment") else { return nil }
        guard ["production", "sandbox"].contains(environment) else {
            throw RevenueCatV2Error.parameter("environment", "environment must be production or sandbox")
        }
        return environment
    }

    // MARK: - Projects and apps

    func v2Projects(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Project> {
        let project = try await revenueCatV2Project(context)
        let created = project.apps.map(project.recordedAt).min() ?? 0
        let item = RevenueCatV2.Project(id: project.id, name: project.id, createdAt: created)
        return try RevenueCatV2Page(request).list([item], id: \.id, path: project.pathPrefix + "/v2/projects")
    }

    func v2Apps(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.App> {
        let project = try await revenueCatV2Project(context)
        return try RevenueCatV2Page(request).list(project.apps.map(project.app), id: \.id, path: project.path("apps"))
    }

    func v2App(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.App {
        let project = try await revenueCatV2Project(context)
        let id = try context.pathParameter("appId")
        guard let app = project.apps.first(where: { RevenueCatV2Project.revenueCatAppId($0) == id }) else {
            throw RevenueCatV2Error.missing("app", param: "app_id")
        }
        return project.app(app)
    }

    // MARK: - Customers

    func v2Customers(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Customer> {
        let page = try RevenueCatV2Page(request)
        return try await revenueCatV2Customers(context).page(page)
    }

    func v2Customer(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.Customer {
        let expand = try Self.revenueCatV2Expand(request, allowed: ["attributes"])
        let customers = try await revenueCatV2Customers(context)
        let (id, members) = try await customers.resolve(try context.customerId())
        return try await customers.customer(id: id, members: members, attributes: expand.contains("attributes"))
    }

    func v2ActiveEntitlements(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.ActiveEntitlement> {
        let page = try RevenueCatV2Page(request)
        let customers = try await revenueCatV2Customers(context)
        let (id, members) = try await customers.resolve(try context.customerId())
        let items = customers.activeEntitlements(try await customers.load(members))
        return try page.list(
            items, id: \.entitlementId, path: customers.project.path("customers/\(RevenueCatV2Page.pathEscaped(id))/active_entitlements"))
    }

    func v2Aliases(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Alias> {
        let page = try RevenueCatV2Page(request)
        let customers = try await revenueCatV2Customers(context)
        let (id, members) = try await customers.resolve(try context.customerId())
        let items = try await customers.aliases(id: id, members: members)
        return try page.list(items, id: \.id, path: customers.project.path("customers/\(RevenueCatV2Page.pathEscaped(id))/aliases"))
    }

    func v2Attributes(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Attribute> {
        let page = try RevenueCatV2Page(request)
        let customers = try await revenueCatV2Customers(context)
        let (id, members) = try await customers.resolve(try context.customerId())
        let items = try await customers.attributes(of: members).map(RevenueCatV2Customers.attribute)
        return try page.list(items, id: \.name, path: customers.project.path("customers/\(RevenueCatV2Page.pathEscaped(id))/attributes"))
    }

    func v2CustomerSubscriptions(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Subscription> {
        let (page, environment) = (try RevenueCatV2Page(request), try Self.revenueCatV2Environment(request))
        let customers = try await revenueCatV2Customers(context)
        let (id, members) = try await customers.resolve(try context.customerId())
        let items = customers.subscriptions(customerId: id, try await customers.load(members), environment: environment)
        return try page.list(items, id: \.id, path: customers.project.path("customers/\(RevenueCatV2Page.pathEscaped(id))/subscriptions"))
    }

    func v2CustomerPurchases(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Purchase> {
        let (page, environment) = (try RevenueCatV2Page(request), try Self.revenueCatV2Environment(request))
        let customers = try await revenueCatV2Customers(context)
        let (id, members) = try await customers.resolve(try context.customerId())
        let items = customers.purchases(customerId: id, try await customers.load(members), environment: environment)
        return try page.list(items, id: \.id, path: customers.project.path("customers/\(RevenueCatV2Page.pathEscaped(id))/purchases"))
    }

    /// Invoices are RevenueCat Billing's; App Store customers have none: an empty list.
    func v2Invoices(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Invoice> {
        let page = try RevenueCatV2Page(request)
        let customers = try await revenueCatV2Customers(context)
        let id = try await customers.resolve(try context.customerId()).id
        return try page.list([], id: \.id, path: customers.project.path("customers/\(RevenueCatV2Page.pathEscaped(id))/invoices"))
    }

    // MARK: - Subscriptions and purchases by id

    /// The chain a v2 subscription id names, with its owner and the engine's state of it now.
    func revenueCatV2Subscription(_ context: APIRequestContext) async throws -> RevenueCatV2.Subscription {
        let customers = try await revenueCatV2Customers(context)
        let id = try context.pathParameter("subscriptionId")
        guard let (app, parts) = customers.project.parse(id, prefix: "sub_", parts: 1) else {
            throw RevenueCatV2Error.missing("subscription", param: "subscription_id")
        }
        let chain = parts[0]
        let entries = try await store.ledger(appId: app.id, originalTransactionId: chain)
        let history = PurchaseHistory(ledger: entries)
        guard let state = CustomerState(history: history, catalog: app.catalog, at: customers.now).subscription(chain),
            let owner = try await store.customer(appId: app.id, alias: .originalTransactionId(chain))
        else { throw RevenueCatV2Error.missing("subscription", param: "subscription_id") }
        let revenue = RevenueLedger(history: history, catalog: app.catalog, at: customers.now)
        return customers.subscription(customerId: owner, app: app, state: state, history: history, revenue: revenue)
    }

    func v2Subscription(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.Subscription {
        try await revenueCatV2Subscription(context)
    }

    func v2SubscriptionEntitlements(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Entitlement> {
        let page = try RevenueCatV2Page(request)
        let subscription = try await revenueCatV2Subscription(context)
        return try page.list(subscription.entitlements.items, id: \.id, path: subscription.entitlements.url)
    }

    /// The transaction a v2 purchase id names (not an auto-renewable subscription's).
    func revenueCatV2Purchase(_ context: APIRequestContext) async throws -> RevenueCatV2.Purchase {
        let customers = try await revenueCatV2Customers(context)
        let id = try context.pathParameter("purchaseId")
        guard let (app, parts) = customers.project.parse(id, prefix: "purch_", parts: 1) else {
            throw RevenueCatV2Error.missing("purchase", param: "purchase_id")
        }
        let entries = try await store.ledger(appId: app.id, transactionId: parts[0])
        let history = PurchaseHistory(ledger: entries)
        guard let fact = history.effectivePurchases.first(where: { $0.transactionId == parts[0] }),
            RevenueCatV2Customers.kind(of: fact, app.catalog) != .autoRenewable, fact.purchaseDate <= customers.now,
            let owner = try await purchaseOwner(app: app, fact: fact, entries: entries)
        else { throw RevenueCatV2Error.missing("purchase", param: "purchase_id") }
        let revenue = RevenueLedger(history: history, catalog: app.catalog, at: customers.now)
        return customers.purchase(customerId: owner, app: app, fact: fact, revenue: revenue)
    }

    private func purchaseOwner(app: AppRuntime, fact: PurchaseFact, entries: [LedgerEntry]) async throws -> String? {
        if let owner = try await store.customer(appId: app.id, alias: .originalTransactionId(fact.originalTransactionId)) { return owner }
        return entries.compactMap(\.customerId).first
    }

    func v2Purchase(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.Purchase {
        try await revenueCatV2Purchase(context)
    }

    func v2PurchaseEntitlements(_ request: Request, _ context: APIRequestContext) async throws -> RevenueCatV2.List<RevenueCatV2.Entitlement> {
        let page = try RevenueCatV2Page(request)
        let purchase = try await revenueCatV2Purchase(context)
        return try page.list(purchase.entitlements.items, id: \.id, path: purchase.entitlements.url)
    }
}
