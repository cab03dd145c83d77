import Foundation
import Hummingbird
import StorekeeperStore
import SubscriptionAnalytics

extension StorekeeperAPI {
    /// `GET /v1/apps/{appId}/metrics?at=ISO8601[&environment=Sandbox]` (app or admin key): the
    /// snapshot metrics at `at` (now by default), from every fact known now, production only
    /// unless the sandbox is asked for.
    func metrics(_ request: Request, _ context: APIRequestContext) async throws -> MetricsReport.Answer {
        try await metricsAnswer(request, context, metric: nil)
    }

    /// `GET /v1/apps/{appId}/metrics/{name}?from=&to=&interval=day|week|month[&groupBy=product|storefront|offer][&environment=]`
    /// (app or admin key): one metric over calendar intervals in the app's time zone.
    func metricSeries(_ request: Request, _ context: APIRequestContext) async throws -> MetricsReport.Answer {
        try await metricsAnswer(request, context, metric: try context.pathParameter("name"))
    }

    /// `GET /v1/apps/{appId}/cohorts?from=&to=&period=month|week[&product=][&environment=]`
    /// (app or admin key): customers grouped by the week or month they first paid, with their
    /// retention and revenue per customer in every later week or month until now.
    func cohorts(_ request: Request, _ context: APIRequestContext) async throws -> MetricsReport.CohortsBody {
        let app = try context.caller().app
        let parameters = request.uri.queryParameters
        do {
            return try await MetricsReport.cohorts(parameters: { parameters.get($0) }, app: app.configuration, now: clock()) {
                try await store.ledger(appId: app.id)
            }
        } catch let invalid as MetricsReport.Invalid {
            throw APIError.badRequest(invalid.description)
        }
    }

    private func metricsAnswer(_ request: Request, _ context: APIRequestContext, metric: String?) async throws -> MetricsReport.Answer {
        let app = try context.caller().app
        let parameters = request.uri.queryParameters
        do {
            let query = try MetricsReport.Query(metric: metric) { parameters.get($0) }
            if try await FigureBuild(store: store).isReady(app.configuration, environment: query.environment) {
                let calendar = FigureCalendar(timeZone: TimeZone(identifier: app.configuration.analytics.timeZone) ?? .gmt)
                let sums = try await store.figureSums(appId: app.id, environment: query.environment, calendar: calendar)
                return try await MetricsReport.answer(query, app: app.configuration, sums: sums, now: clock())
            }
            if query.readsIndexOnly {
                let index = try await analyticsCache.index(of: app.configuration, environment: query.environment, store: store)
                return try MetricsReport.answer(query, app: app.configuration, index: index, now: clock())
            }
            let entries = try await store.ledger(appId: app.id)
            return try MetricsReport.answer(query, app: app.configuration, entries: entries, now: clock())
        } catch let invalid as MetricsReport.Invalid {
            throw APIError.badRequest(invalid.description)
        }
    }
}
