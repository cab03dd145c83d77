import Hummingbird

extension StorekeeperAPI {
    /// RevenueCat's SDK routes (v1), under the RevenueCat prefix.
    package func addRevenueCatSDKRoutes(to router: RouterGroup<APIRequestContext>) {
    }
}
