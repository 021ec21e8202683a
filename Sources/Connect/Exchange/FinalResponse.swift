/// The final response as it is: the middleware path, which validates it later.
struct FinalResponse: ResponseFinish {
    func make(from response: Response) -> Response { response }
}
