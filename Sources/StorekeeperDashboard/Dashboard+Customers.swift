import AppStoreModels
import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperHTTP
import StorekeeperStore
import SubscriptionEngine

/// Customers: search, one customer's state and timeline, and support's actions on them — each
/// confirmed on a page of its own, audited under the user's name, and shown at once.
extension Dashboard {
    package func addCustomerRoutes(to group: RouterGroup<APIRequestContext>) {
        group.get("apps/:appId/customers", use: customers)
            .get("apps/:appId/customers/:customerId", use: customerPage)
            .post("apps/:appId/customers/:customerId/grant", use: grant)
            .post("apps/:appId/customers/:customerId/revoke", use: revoke)
            .post("apps/:appId/customers/:customerId/extend", use: extend)
            .post("apps/:appId/customers/:customerId/app-account-token", use: appAccountToken)
            .post("apps/:appId/order-lookup", use: orderLookup)
    }

    // MARK: - Search

    package struct CustomerRow {
        package var id: String
        package var href: String
        package var status: String
        package var entitlements: String
        package var matchedBy: String
    }

    package struct CustomersModel {
        package var query: String
        package var searched: Bool
        package var heading: String
        package var rows: [CustomerRow]
        package var hasRows: Bool
        package var lookupAction: String
    }

    package func customers(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try supportApp(context)
        let query = (request.uri.queryParameters.get("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard query.utf8.count <= 256, !query.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw DashboardError.badRequest("Search for at most 256 printable characters.")
        }
        var found: [(String, String)] = []
        if query.isEmpty {
            found = try await store.recentCustomers(appId: app.id, limit: 50).map { ($0, "recent") }
        } else {
            found = try await search(query, app: app)
        }
        var rows: [CustomerRow] = []
        for (id, matched) in found {
            let state = try await customerState(id, app: app)
            rows.append(
                CustomerRow(
                    id: id, href: customerHref(app, id), status: Self.summary(state), entitlements: Self.entitlementText(state),
                    matchedBy: matched))
        }
        let model = CustomersModel(
            query: query, searched: !query.isEmpty,
            heading: query.isEmpty ? "Newest customers" : "\(rows.count) found for “\(query)”", rows: rows, hasRows: !rows.isEmpty,
            lookupAction: "/dashboard/apps/\(Self.pathComponent(app.id))/order-lookup")
        return templates.page("customers", title: "Customers", frame: frame(visitor, app: app, section: "customers"), page: model)
    }

    /// Customers matching `query` exactly, by customer id, alias (original transaction id, app
    /// account token, another app user id) or transaction id.
    package func search(_ query: String, app: AppRuntime) async throws -> [(String, String)] {
        var found: [(String, String)] = []
        func add(_ id: String?, _ how: String) {
            if let id, !found.contains(where: { CustomerId.same($0.0, id) }) { found.append((id, how)) }
        }
        if try await store.customerExists(appId: app.id, customerId: query) { add(query, "customer id") }
        add(try await store.customer(appId: app.id, alias: .originalTransactionId(query)), "original transaction id")
        if let token = UUID(uuidString: query) {
            add(try await store.customer(appId: app.id, alias: .appAccountToken(token.uuidString.lowercased())), "app account token")
        }
        add(try await store.customer(appId: app.id, alias: CustomerAlias(kind: .appUserId, value: query)), "app user id")
        for entry in try await store.ledger(appId: app.id, transactionId: query) {
            if let chain = entry.fact.originalTransactionId {
                add(try await store.customer(appId: app.id, alias: .originalTransactionId(chain)) ?? entry.customerId, "transaction id")
            } else {
                add(entry.customerId, "transaction id")
            }
        }
        return found
    }

    package func customerState(_ customerId: String, app: AppRuntime) async throws -> CustomerState {
        let entries = try await store.ledger(appId: app.id, customerId: customerId)
        return CustomerState(history: PurchaseHistory(ledger: entries), catalog: app.catalog, at: clock())
    }

    package func customerHref(_ app: AppRuntime, _ customerId: String) -> String {
        "/dashboard/apps/\(Self.pathComponent(app.id))/customers/\(Self.pathComponent(customerId))"
    }

    package static func summary(_ state: CustomerState) -> String {
        guard !state.subscriptions.isEmpty else { return state.entitlements.isEmpty ? "no purchases" : "purchases only" }
        let counts = Dictionary(grouping: state.subscriptions, by: \.status.rawValue).mapValues(\.count)
        return counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }

    package static func entitlementText(_ state: CustomerState) -> String {
        let names = Set(state.entitlements.map(\.identifier)).sorted()
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    // MARK: - One customer

    package struct CustomerModel {
        package struct EntitlementRow {
            package var identifier: String
            package var productId: String
            package var expires: String
            package var basis: String
            package var transactionId: String
            package var revocable: Bool
        }
        package struct SubscriptionRow {
            package var originalTransactionId: String
            package var productId: String
            package var status: String
            package var expires: String
            package var renewal: String
            package var offer: String
        }
        package struct TimelineRow {
            package var at: String
            package var kind: String
            package var summary: String
            package var source: String
            package var decoded: String? = nil
            /// An event's type and details as the API and webhooks carry them (behind a disclosure).
            package var raw: String? = nil
        }
        package struct AttributeRow {
            package var key: String
            package var value: String
            package var updated: String
        }
        package var customerId: String
        package var aliases: [String]
        package var hasAliases: Bool
        /// What the app keeps about the customer (RevenueCat's subscriber attributes), set ones.
        package var attributes: [AttributeRow]
        package var hasAttributes: Bool
        package var entitlements: [EntitlementRow]
        package var subscriptions: [SubscriptionRow]
        package var timeline: [TimelineRow]
        package var canAct: Bool
        package var products: [String]
        package var chains: [String]
        package var hasChains: Bool
        package var action: String
        package var lookupAction: String
        package var hasAppleAccess: Bool
        package var notice: String?
    }

    package func customerPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try supportApp(context)
        let customer = try context.customerId()
        guard try await store.customerExists(appId: app.id, customerId: customer) else { throw DashboardError.notFound }
        let entries = try await store.ledger(appId: app.id, customerId: customer)
        let state = CustomerState(history: PurchaseHistory(ledger: entries), catalog: app.catalog, at: clock())
        let days = DayFormat(timeZone: app.configuration.analytics.timeZone)
        func when(_ date: Date?) -> String { date.map(days.instant) ?? "–" }

        var timeline: [(Date, CustomerModel.TimelineRow)] = []
        for entry in entries {
            let date = entry.fact.signedDate ?? entry.recordedAt
            let (kind, summary) = Self.describe(entry.fact, when: when)
            timeline.append(
                (
                    date,
                    .init(
                        at: when(date), kind: kind, summary: summary, source: entry.source.rawValue,
                        decoded: entry.raw.flatMap { SignedPayloadText.decode($0) })
                ))
        }
        let chains = Set(entries.compactMap(\.fact.originalTransactionId)).sorted()
        for chain in chains.prefix(50) {
            for row in try await store.notifications(appId: app.id, filter: NotificationFilter(originalTransactionId: chain, limit: 100)) {
                let type = [row.metadata?.notificationType, row.metadata?.subtype].compactMap { $0 }.joined(separator: " / ")
                let summary = "\(type.isEmpty ? "notification" : type) — \(row.state.rawValue)" + (row.failureReason.map { " (\($0))" } ?? "")
                timeline.append(
                    (
                        row.receivedAt,
                        .init(at: when(row.receivedAt), kind: "notification", summary: summary, source: "inbox #\(row.id ?? 0)")
                    ))
            }
        }
        let sentences = EventSentence(timeZone: app.configuration.analytics.timeZone)
        for event in try await store.events(appId: app.id, customerId: customer, limit: 500) {
            timeline.append(
                (
                    event.occurredAt,
                    .init(
                        at: when(event.occurredAt), kind: "event", summary: sentences.text(event), source: "engine",
                        raw: "\(event.type.rawValue) \(event.details.json)")
                ))
        }
        for audit in try await store.auditEntries(appId: app.id, customerId: customer, limit: 500) {
            let details = audit.details.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            timeline.append(
                (
                    audit.at,
                    .init(
                        at: when(audit.at), kind: "support: \(audit.action)", summary: "\(audit.reason ?? "") — \(details)", source: audit.actor)
                ))
        }
        timeline.sort { $0.0 > $1.0 }

        let aliases = try await store.aliases(appId: app.id, customerId: customer).map { "\($0.kind.rawValue): \($0.value)" }
        let attributes = try await store.customerAttributes(appId: app.id, customerId: customer).compactMap { attribute in
            attribute.value.map { CustomerModel.AttributeRow(key: attribute.key, value: $0, updated: when(attribute.updatedAt)) }
        }
        let model = CustomerModel(
            customerId: customer, aliases: aliases, hasAliases: !aliases.isEmpty, attributes: attributes, hasAttributes: !attributes.isEmpty,
            entitlements: state.entitlements.map {
                .init(
                    identifier: $0.identifier, productId: $0.productId, expires: $0.expiresDate.map(when) ?? "never", basis: $0.basis.rawValue,
                    transactionId: $0.transactionId, revocable: visitor.mayWorkOnCustomers)
            },
            subscriptions: state.subscriptions.map { subscription in
                let renewal: String
                switch subscription.willAutoRenew {
                case true?: renewal = "renews" + (subscription.nextProductId.map { $0 != subscription.productId ? " to \($0)" : "" } ?? "")
                case false?: renewal = "will not renew" + (subscription.expirationReason.map { " (\($0.rawValue))" } ?? "")
                case nil: renewal = "unknown"
                }
                return .init(
                    originalTransactionId: subscription.originalTransactionId, productId: subscription.productId,
                    status: subscription.status.rawValue, expires: when(subscription.expiresDate), renewal: renewal,
                    offer: subscription.offer.map { $0.kind.rawValue } ?? "")
            },
            timeline: timeline.map(\.1), canAct: visitor.mayWorkOnCustomers, products: app.catalog.products.map(\.productId).sorted(),
            chains: state.subscriptions.map(\.originalTransactionId), hasChains: !state.subscriptions.isEmpty, action: customerHref(app, customer),
            lookupAction: "/dashboard/apps/\(Self.pathComponent(app.id))/order-lookup",
            hasAppleAccess: api.appleClients.client(for: app.id) != nil,
            notice: request.uri.queryParameters.get("done").flatMap(Self.doneText))
        return templates.page("customer", title: "Customer \(customer)", frame: frame(visitor, app: app, section: "customers"), page: model)
    }

    package static func doneText(_ code: String) -> String? {
        switch code {
        case "granted": "The entitlement was granted and audited."
        case "revoked": "The entitlement was revoked and audited."
        case "extended": "Apple extended the renewal date; the change was audited and the subscription will be refreshed."
        case "token": "Apple now has the new app account token; the change was audited."
        default: nil
        }
    }

    package static func describe(_ fact: LedgerFact, when: (Date?) -> String) -> (String, String) {
        switch fact {
        case .purchase(let purchase):
            var text = "\(purchase.productId) transaction \(purchase.transactionId), \(when(purchase.purchaseDate))"
            if let expires = purchase.expiresDate { text += " → \(when(expires))" }
            if let price = purchase.price { text += ", \(Decimal(price.milliunits) / 1000) \(price.currency)" }
            if let offer = purchase.offer { text += ", offer \(offer.kind.rawValue)" }
            if let revocation = purchase.revocation { text += ", revoked \(when(revocation.date)) (\(revocation.kind.rawValue))" }
            return (purchase.transactionId.hasPrefix("grant:") ? "grant" : "purchase", text)
        case .renewal(let renewal):
            var parts = ["chain \(renewal.originalTransactionId)"]
            if let willRenew = renewal.willAutoRenew { parts.append(willRenew ? "auto-renew on" : "auto-renew off") }
            if let product = renewal.autoRenewProductId { parts.append("renews to \(product)") }
            if renewal.isInBillingRetry == true { parts.append("billing retry") }
            if let grace = renewal.gracePeriodExpiresDate { parts.append("grace until \(when(grace))") }
            if let reason = renewal.expirationReason { parts.append("expiration reason \(reason.rawValue)") }
            return ("renewal info", parts.joined(separator: ", "))
        case .revocation(let revocation):
            return (
                "revocation", "transaction \(revocation.transactionId) revoked \(when(revocation.date))" + (revocation.reason.map { ": \($0)" } ?? "")
            )
        }
    }

    // MARK: - Actions

    /// A confirmation page: what will happen, and a button that posts the same fields with `confirm=yes`.
    package struct ConfirmModel {
        package struct Field {
            package var name: String
            package var value: String
        }
        package var heading: String
        package var lines: [String]
        package var action: String
        package var fields: [Field]
        package var back: String
    }

    /// The action's form after its confirmation, or the confirmation page to show first.
    private func confirmed(
        _ form: FormFields, visitor: DashboardVisitor, app: AppRuntime, customer: String, action: String, heading: String, lines: [String]
    ) -> Response? {
        guard form["confirm"] != "yes" else { return nil }
        let fields = form.values.filter { $0.key != "csrf" && $0.key != "confirm" }.sorted { $0.key < $1.key }.map {
            ConfirmModel.Field(name: $0.key, value: $0.value)
        }
        return templates.page(
            "confirm", title: heading, frame: frame(visitor, app: app, section: "customers"),
            page: ConfirmModel(
                heading: heading, lines: lines, action: customerHref(app, customer) + "/" + action, fields: fields, back: customerHref(app, customer))
        )
    }

    /// The customer in the path, for an action: support only, a customer of this app.
    private func actionTarget(_ request: Request, _ context: APIRequestContext) async throws -> (DashboardVisitor, AppRuntime, String, FormFields) {
        let (visitor, app) = try supportApp(context)
        let form = try await Self.checkedForm(request, context, api: api)
        let customer = try context.customerId()
        guard try await store.customerExists(appId: app.id, customerId: customer) else { throw DashboardError.notFound }
        return (visitor, app, customer, form)
    }

    package func reason(_ form: FormFields) throws -> String {
        guard let reason = form.text("reason"), reason.count <= 1000 else {
            throw DashboardError.badRequest("Give a reason (at most 1,000 characters).")
        }
        return reason
    }

    package func grant(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app, customer, form) = try await actionTarget(request, context)
        guard let product = form.text("productId") else { throw DashboardError.badRequest("Choose a product.") }
        let reason = try reason(form)
        let days = DayFormat(timeZone: app.configuration.analytics.timeZone)
        var end: Date?
        if let text = form.text("endDate") {
            guard let day = days.date(text) else { throw DashboardError.badRequest("The end date must be a day, YYYY-MM-DD.") }
            end = days.calendar.date(byAdding: .day, value: 1, to: day)
        }
        if let page = confirmed(
            form, visitor: visitor, app: app, customer: customer, action: "grant", heading: "Grant \(product) to \(customer)?",
            lines: ["Access to \(product) from now until \(end.map(days.instant) ?? "no end date").", "Reason: \(reason)"])
        {
            return page
        }
        var input = StorekeeperAPI.GrantRequest(
            action: "grant", productId: product, startDate: nil, endDate: end, transactionId: nil, grantId: nil, reason: reason)
        input.grantId = form.text("grantId")
        try await api.recordGrant(input, customer: customer, app: app, actor: visitor.actor)
        return Self.redirect(to: customerHref(app, customer) + "?done=granted")
    }

    package func revoke(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app, customer, form) = try await actionTarget(request, context)
        guard let transaction = form.text("transactionId") else { throw DashboardError.badRequest("Choose what to revoke.") }
        let reason = try reason(form)
        if let page = confirmed(
            form, visitor: visitor, app: app, customer: customer, action: "revoke", heading: "Revoke transaction \(transaction)?",
            lines: ["\(customer) loses the access this transaction or grant gives, from now.", "Reason: \(reason)"])
        {
            return page
        }
        let input = StorekeeperAPI.GrantRequest(
            action: "revoke", productId: nil, startDate: nil, endDate: nil, transactionId: transaction, grantId: nil, reason: reason)
        try await api.recordGrant(input, customer: customer, app: app, actor: visitor.actor)
        return Self.redirect(to: customerHref(app, customer) + "?done=revoked")
    }

    /// The chain named by the form, when it is this customer's.
    private func customerChain(_ form: FormFields, app: AppRuntime, customer: String) async throws -> String {
        guard let text = form.text("originalTransactionId") else { throw DashboardError.badRequest("Choose a subscription.") }
        let chain = try StorekeeperAPI.checkedChain(text)
        guard CustomerId.same(try await store.customer(appId: app.id, alias: .originalTransactionId(chain)), customer) else {
            throw DashboardError.badRequest("That subscription is not this customer's.")
        }
        return chain
    }

    package func extend(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app, customer, form) = try await actionTarget(request, context)
        let chain = try await customerChain(form, app: app, customer: customer)
        guard let days = form.text("days").flatMap(Int32.init), (1...90).contains(days) else {
            throw DashboardError.badRequest("Extend by 1 to 90 days.")
        }
        let code = form.text("reasonCode").flatMap(Int32.init) ?? 1
        let reason = try reason(form)
        if let page = confirmed(
            form, visitor: visitor, app: app, customer: customer, action: "extend", heading: "Extend subscription \(chain) by \(days) days?",
            lines: ["Apple moves the renewal date \(days) days later; the customer is not charged for them.", "Reason: \(reason)"])
        {
            return page
        }
        // One request identifier per confirmed form: a double submit is one extension at Apple.
        let identifier = form.text("requestIdentifier") ?? UUID().uuidString.lowercased()
        let input = StorekeeperAPI.ExtendRequest(extendByDays: days, extendReasonCode: code, requestIdentifier: identifier, reason: reason)
        _ = try await api.extendRenewal(input, chain: chain, app: app, actor: visitor.actor)
        return Self.redirect(to: customerHref(app, customer) + "?done=extended")
    }

    package func appAccountToken(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app, customer, form) = try await actionTarget(request, context)
        let chain = try await customerChain(form, app: app, customer: customer)
        guard let token = form.text("appAccountToken"), UUID(uuidString: token) != nil else {
            throw DashboardError.badRequest("The app account token must be a UUID.")
        }
        let reason = try reason(form)
        if let page = confirmed(
            form, visitor: visitor, app: app, customer: customer, action: "app-account-token",
            heading: "Set the app account token of \(chain)?",
            lines: ["Apple will report \(token.lowercased()) with this subscription.", "Reason: \(reason)"])
        {
            return page
        }
        _ = try await api.setAppAccountToken(.init(appAccountToken: token, reason: reason), chain: chain, app: app, actor: visitor.actor)
        return Self.redirect(to: customerHref(app, customer) + "?done=token")
    }

    package struct OrderModel {
        package struct Row {
            package var transactionId: String
            package var originalTransactionId: String
            package var productId: String
            package var purchased: String
            package var customer: String?
            package var customerHref: String?
        }
        package var orderId: String
        package var status: String
        package var rows: [Row]
    }

    /// Looks up a customer's order id (from Apple's receipt email) at Apple; audited.
    package func orderLookup(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try supportApp(context)
        let form = try await Self.checkedForm(request, context, api: api)
        guard let orderId = form.text("orderId"), orderId.utf8.count <= 64, orderId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw DashboardError.badRequest("An order id is the letters and digits from Apple's receipt email.")
        }
        let client = try api.appleClient(app)
        let answer = try await api.callApple { try await client.lookUpOrderId(orderId: orderId) }
        let now = clock()
        let days = DayFormat(timeZone: app.configuration.analytics.timeZone)
        var rows: [OrderModel.Row] = []
        for signed in answer.signedTransactions ?? [] {
            guard case .valid(let transaction) = await app.verify(signedOnly: true, { await $0.verifyAndDecodeTransaction(signed, now: now) }) else {
                continue
            }
            let chain = transaction.originalTransactionId ?? ""
            let owner = chain.isEmpty ? nil : try await store.customer(appId: app.id, alias: .originalTransactionId(chain))
            rows.append(
                .init(
                    transactionId: transaction.transactionId ?? "", originalTransactionId: chain, productId: transaction.productId ?? "",
                    purchased: transaction.purchaseDate.map(days.instant) ?? "–", customer: owner, customerHref: owner.map { customerHref(app, $0) }))
        }
        try await api.audit(
            .lookupOrder, app: app, actor: visitor.actor, customerId: rows.compactMap(\.customer).first, reason: "order lookup",
            details: ["orderId": orderId, "transactions": "\(rows.count)"], at: now)
        let status = answer.status?.rawValue == 0 ? "valid" : "invalid (Apple's status \(answer.status.map { String($0.rawValue) } ?? "none"))"
        return templates.page(
            "order", title: "Order \(orderId)", frame: frame(visitor, app: app, section: "customers"),
            page: OrderModel(orderId: orderId, status: status, rows: rows))
    }
}
