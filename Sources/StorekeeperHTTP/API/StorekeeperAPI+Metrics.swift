import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperStore
import SubscriptionAnalytics

extension StorekeeperAPI {
    /// `GET /v1/apps/{appId}/metrics?at=ISO8601[&environment=Sandbox]` (app or admin key): the
    /// snapshot metrics at `at` (now by default), from every fact known now, production only
    /// unless the sandbox is asked for.
    package func metrics(_ request: Request, _ context: APIRequestContext) async throws -> MetricsReport.Answer {
        try await metricsAnswer(request, context, metric: nil)
    }

    /// `GET /v1/apps/{appId}/metrics/{name}?from=&to=&interval=day|week|month[&groupBy=product|storefront|offer][&environment=]`
    /// (app or admin key): one metric over calendar intervals in the app's time zone.
    package func metricSeries(_ request: Request, _ context: APIRequestContext) async throws -> MetricsReport.Answer {
        try await metricsAnswer(request, context, metric: try context.pathParameter("name"))
    }

    /// `GET /v1/apps/{appId}/cohorts?from=&to=&period=month|week[&product=][&environment=]`
    /// (app or admin key): customers grouped by the week or month they first paid, with their
    /// retention and revenue per customer in every later week or month until now.
    package func cohorts(_ request: Request, _ context: APIRequestContext) async throws -> MetricsReport.CohortsBody {
        let app = try context.caller().app
        let parameters = request.uri.queryParameters
        do {
            let parameter: (String) -> String? = { parameters.get($0) }
            return try await MetricsReport.cohorts(parameters: parameter, app: app.configuration, now: clock()) {
                try await figureSums(of: app.configuration, environment: $0)
            }
        } catch let invalid as MetricsReport.Invalid {
            throw APIError.badRequest(invalid.description)
        }
    }

    /// The sums of the app's figures (``FigureSource``); 503 while a large app's are being built.
    package func figureSums(of app: AppConfiguration, environment: String) async throws -> any FigureSums {
        do {
            return try await FigureSource(store: reads).sums(of: app, environment: environment)
        } catch let building as FiguresBuilding {
            throw APIError.retryLater(building.description)
        }
    }

    private func metricsAnswer(_ request: Request, _ context: APIRequestContext, metric: String?) async throws -> MetricsReport.Answer {
        let app = try context.caller().app
        let parameters = request.uri.queryParameters
        do {
            let query = try MetricsReport.Query(metric: metric) { parameters.get($0) }
            let sums = try await figureSums(of: app.configuration, environment: query.environment)
            return try await MetricsReport.answer(query, app: app.configuration, sums: sums, now: clock())
        } catch let invalid as MetricsReport.Invalid {
            throw APIError.badRequest(invalid.description)
        }
    }
}
