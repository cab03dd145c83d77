import Hummingbird

extension StorekeeperAPI {
    /// RevenueCat's REST API v2 read routes, under the RevenueCat prefix.
    package func addRevenueCatV2Routes(to router: RouterGroup<APIRequestContext>) {
    }
}
