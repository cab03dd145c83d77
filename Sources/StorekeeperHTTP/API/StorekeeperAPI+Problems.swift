import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperStore
import SubscriptionEngine

extension StorekeeperAPI {
    package struct ProblemResponse: Encodable {
        package var id: Int64?
        package var kind: String
        package var status: String
        package var customerId: String?
        package var summary: String
        package var evidence: [String: String]
        package var amount: Decimal?
        package var currency: String?
        package var occurrences: Int
        package var openedAt: Date
        package var resolvedAt: Date?
        package var resolvedBy: String?

        package init(_ problem: Problem) {
            id = problem.id
            kind = problem.kind
            status = problem.status.rawValue
            customerId = problem.customerId
            summary = problem.summary
            evidence = problem.evidence
            amount = problem.amount
            currency = problem.currency
            occurrences = problem.occurrences
            openedAt = problem.openedAt
            resolvedAt = problem.resolvedAt
            resolvedBy = problem.resolvedBy
        }
    }

    /// `GET /v1/apps/{appId}/problems?status=open|resolved|noted&limit=` (admin key).
    package func listProblems(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let app = try context.caller().app
        var status: ProblemStatus?
        if let text = request.uri.queryParameters.get("status") {
            guard let value = ProblemStatus(rawValue: text) else { throw APIError.badRequest("status must be open, resolved or noted") }
            status = value
        }
        let problems = try await store.problems(appId: app.id, status: status, limit: try Self.limit(request))
        return JSONBody.response(value: ["problems": problems.map(ProblemResponse.init)])
    }

    /// `POST /v1/apps/{appId}/problems/{problemId}/resolve` with `{"reason"}` (admin key): audited,
    /// and `problem.resolved` goes to the alert destinations.
    package func resolveProblem(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (app, principal) = (try context.caller().app, try context.caller().principal)
        guard let id = Int64(try context.pathParameter("problemId")), id > 0 else { throw APIError.notFound }
        struct Input: Decodable { var reason: String }
        let reason = try Self.checkedReason(try JSONBody.decode(Input.self, from: try await body(request)).reason)
        guard let problem = try await resolveProblem(id: id, app: app, actor: principal.actor, reason: reason) else { throw APIError.notFound }
        return JSONBody.response(value: ProblemResponse(problem))
    }

    /// Resolves an open problem of `app` by hand, audited under `actor`.
    package func resolveProblem(id: Int64, app: AppRuntime, actor: String, reason: String) async throws -> Problem? {
        let now = clock()
        guard
            let problem = try await store.resolveProblem(
                appId: app.id, id: id, at: now, by: actor,
                event: { problem in
                    ProblemDesk.event(.problemResolved, problem: problem, at: now, app: app, excluding: nil)
                })
        else { return nil }
        try await audit(
            .resolveProblem, app: app, actor: actor, customerId: problem.customerId, reason: reason,
            details: ["problem": "\(id)", "kind": problem.kind], at: now)
        return problem
    }

    package struct ReportedProblem: Decodable {
        /// `not_charged` (the purchase failed before payment: counted) or `charged_not_delivered`
        /// (the app gave up delivering what the customer paid for: a ticket and an alert).
        package var kind: String
        package var productId: String?
        package var transactionId: String?
        /// Apple's signed transaction: what proves a purchase the server has not linked yet.
        package var signedTransaction: String?
        package var reason: String
        package var evidence: [String: String]?
    }

    /// At most this many open tickets from reports per customer.
    package static let maximumOpenReports = 5
    /// The cause keys of tickets opened by reports start with this.
    package static let reportedCause = "reported:"

    /// `POST /v1/apps/{appId}/customers/{customerId}/problems` (app key or the customer's token):
    /// the app reports a purchase that went wrong on the device.
    ///
    /// A report speaks only of the reporter's own purchases (``reportersPurchase(_:signed:customer:app:now:)``).
    /// Each customer files at most ``ProblemReportQuota`` reports (429 with `Retry-After`
    /// beyond) and keeps at most ``maximumOpenReports`` tickets open (409 beyond; repeating an
    /// open one only counts an occurrence).
    package func reportProblem(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let app = try context.caller().app
        let customer = try context.customerId()
        let now = clock()
        if let wait = problemReports.take(appId: app.id, customerId: customer, now: now) {
            let seconds = max(1, Int(wait.rounded(.up)))
            var error = APIError(
                .tooManyRequests, code: .tooManyRequests, message: "too many problem reports for this customer: retry in \(seconds) seconds")
            error.retryAfter = seconds
            throw error
        }
        let input = try JSONBody.decode(ReportedProblem.self, from: try await body(request))
        let reason = try Self.checkedReason(input.reason)
        guard [ProblemDesk.notCharged, ProblemDesk.chargedNotDelivered].contains(input.kind) else {
            throw APIError.badRequest("kind must be not_charged or charged_not_delivered")
        }
        for text in [input.productId, input.transactionId].compactMap({ $0 }) where !(1...256).contains(text.utf8.count) {
            throw APIError.badRequest("productId and transactionId must be 1 to 256 bytes")
        }
        let evidence = input.evidence ?? [:]
        guard evidence.count <= 20, evidence.allSatisfy({ $0.key.utf8.count <= 64 && $0.value.utf8.count <= 1000 }) else {
            throw APIError.badRequest("evidence holds at most 20 fields of at most 1000 bytes")
        }
        let charged = input.kind == ProblemDesk.chargedNotDelivered
        let purchase = try await reportersPurchase(input, customer: customer, app: app, now: now)
        guard !charged || purchase != nil else {
            throw APIError.badRequest("charged_not_delivered needs the purchase's transactionId (and its signedTransaction until it is posted)")
        }
        var recorded = evidence
        recorded["reportedBy"] = "app"
        recorded["productId"] = input.productId ?? purchase?.productId
        recorded["transactionId"] = input.transactionId ?? purchase?.transactionId
        recorded[ProblemDesk.environmentEvidence] = purchase?.environment
        // A charge the app could not deliver is one problem per transaction and customer;
        // failures before payment are each only noted.
        let cause =
            charged ? "\(Self.reportedCause)\(purchase?.transactionId ?? ""):\(customer)" : "\(ProblemDesk.notCharged):\(UUID().uuidString)"
        if charged {
            let open = try await store.problems(appId: app.id, customerId: customer, status: .open, limit: 1000)
                .filter { $0.causeKey.hasPrefix(Self.reportedCause) }
            if open.count >= Self.maximumOpenReports, !open.contains(where: { $0.causeKey == cause }) {
                throw APIError(
                    .conflict, code: .tooManyOpenProblems, message: "this customer has \(open.count) open problem reports: wait until one is resolved"
                )
            }
        }
        var problem = Problem(
            appId: app.id, kind: input.kind, causeKey: cause, status: charged ? .open : .noted, customerId: customer,
            summary: charged ? "\(customer) paid but the app could not deliver: \(reason)" : "purchase failed before payment: \(reason)",
            evidence: recorded, openedAt: now)
        if charged, let price = purchase?.price {
            problem.amount = Decimal(price.milliunits) / 1000
            problem.currency = price.currency
        }
        let opened = try await ProblemDesk(store: store).open(problem, app: app)
        return JSONBody.response(
            status: .accepted, value: ["kind": input.kind, "status": problem.status.rawValue, "opened": opened ? "true" : "false"])
    }

    /// The purchase a report names, once it is shown to be the reporter's; `nil` when the report
    /// names none, or a transaction the server does not know and brings no proof of.
    ///
    /// - A transaction linked to a customer is the reporter's only when linked to them (409
    ///   otherwise).
    /// - A transaction the server does not know, or knows from Apple's notifications without a
    ///   customer, needs Apple's signed transaction: it must verify for the app (422 otherwise),
    ///   and its app account token must not be another customer's (409). That is what the
    ///   device that bought it holds when posting it failed. Without it, a `charged_not_delivered`
    ///   report is refused (422); a `not_charged` one goes on without a purchase.
    private func reportersPurchase(_ input: ReportedProblem, customer: String, app: AppRuntime, now: Date) async throws -> PurchaseFact? {
        var signed: PurchaseFact?
        if let text = input.signedTransaction {
            let (fact, token) = try await verifiedTransaction(text, app: app, now: now)
            if let id = input.transactionId, id != fact.transactionId {
                throw APIError.badRequest("transactionId is not the signed transaction's")
            }
            if let token {
                try await checkAppAccountToken(token, isCustomers: customer, app: app, mustBeIssued: false, refusal: Self.anotherCustomersTransaction)
            }
            signed = fact
        }
        guard let transactionId = input.transactionId ?? signed?.transactionId else { return nil }
        if let (purchase, owner) = try await recordedPurchase(transactionId: transactionId, app: app), owner != nil || signed == nil {
            guard let owner else {
                guard input.kind == ProblemDesk.notCharged else {
                    throw APIError(
                        .unprocessableContent, code: .unknownTransaction,
                        message: "transaction \(transactionId) is linked to no customer: send its signedTransaction, or post the purchase first")
                }
                return nil
            }
            guard CustomerId.same(owner, customer) else { throw Self.anotherCustomersTransaction }
            return purchase
        }
        guard signed != nil || input.kind == ProblemDesk.notCharged else {
            throw APIError(
                .unprocessableContent, code: .unknownTransaction,
                message: "no transaction \(transactionId) is recorded for this app: send its signedTransaction, or post the purchase first")
        }
        return signed
    }
}
