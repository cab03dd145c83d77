import Foundation
import Hummingbird
import StorekeeperStore
import SubscriptionEngine

extension StorekeeperAPI {
    struct ProblemResponse: Encodable {
        var id: Int64?
        var kind: String
        var status: String
        var customerId: String?
        var summary: String
        var evidence: [String: String]
        var amount: Decimal?
        var currency: String?
        var occurrences: Int
        var openedAt: Date
        var resolvedAt: Date?
        var resolvedBy: String?

        init(_ problem: Problem) {
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
    func listProblems(_ request: Request, _ context: APIRequestContext) async throws -> Response {
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
    func resolveProblem(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (app, principal) = (try context.caller().app, try context.caller().principal)
        guard let id = Int64(try context.pathParameter("problemId")), id > 0 else { throw APIError.notFound }
        struct Input: Decodable { var reason: String }
        let reason = try Self.checkedReason(try JSONBody.decode(Input.self, from: try await body(request)).reason)
        guard let problem = try await resolveProblem(id: id, app: app, actor: principal.actor, reason: reason) else { throw APIError.notFound }
        return JSONBody.response(value: ProblemResponse(problem))
    }

    /// Resolves an open problem of `app` by hand, audited under `actor`.
    func resolveProblem(id: Int64, app: AppRuntime, actor: String, reason: String) async throws -> Problem? {
        let now = clock()
        guard
            let problem = try await store.resolveProblem(
                appId: app.id, id: id, at: now, by: actor,
                event: { problem in
                    ProblemDesk.event("problem.resolved", problem: problem, at: now, app: app, excluding: nil)
                })
        else { return nil }
        try await store.apply(
            Changeset(
                appId: app.id, at: now,
                audit: [
                    AuditEntry(
                        appId: app.id, actor: actor, action: "resolve_problem", customerId: problem.customerId, reason: reason,
                        details: ["problem": "\(id)", "kind": problem.kind], at: now)
                ]))
        return problem
    }

    struct ReportedProblem: Decodable {
        /// `not_charged` (the purchase failed before payment: counted) or `charged_not_delivered`
        /// (the app gave up delivering what the customer paid for: a ticket and an alert).
        var kind: String
        var productId: String?
        var transactionId: String?
        var reason: String
        var evidence: [String: String]?
    }

    /// `POST /v1/apps/{appId}/customers/{customerId}/problems` (app key or the customer's token):
    /// the app reports a purchase that went wrong on the device.
    func reportProblem(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let app = try context.caller().app
        let customer = try context.customerId()
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
        let now = clock()
        var recorded = evidence
        recorded["reportedBy"] = "app"
        recorded["productId"] = input.productId
        recorded["transactionId"] = input.transactionId
        let charged = input.kind == ProblemDesk.chargedNotDelivered
        // A charge the app could not deliver is one problem per transaction; failures before
        // payment are each only noted.
        let cause = charged ? "reported:\(input.transactionId ?? UUID().uuidString)" : "not_charged:\(UUID().uuidString)"
        var problem = Problem(
            appId: app.id, kind: input.kind, causeKey: cause, status: charged ? .open : .noted, customerId: customer,
            summary: charged ? "\(customer) paid but the app could not deliver: \(reason)" : "purchase failed before payment: \(reason)",
            evidence: recorded, openedAt: now)
        if charged, let transactionId = input.transactionId,
            let purchase = try await store.ledger(appId: app.id, transactionId: transactionId).lazy.compactMap({ entry -> Money? in
                if case .purchase(let fact) = entry.fact { return fact.price }
                return nil
            }).first
        {
            problem.amount = Decimal(purchase.milliunits) / 1000
            problem.currency = purchase.currency
        }
        let opened = try await ProblemDesk(store: store).open(problem, app: app)
        return JSONBody.response(
            status: .accepted, value: ["kind": input.kind, "status": problem.status.rawValue, "opened": opened ? "true" : "false"])
    }
}
