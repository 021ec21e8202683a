extension Array {
    /// Empties the array and keeps its buffer, element by element from the end.
    ///
    /// `removeAll(keepingCapacity: true)` replaces the whole range with an empty collection
    /// through the standard library's generic `replaceSubrange`: a few hundred bytes of code for
    /// each element type, on the path of every request, where the loop's batches hold one or two
    /// elements. Removing the last element is a uniqueness check and the element's release.
    mutating func removeAllKeepingBuffer() {
        while !isEmpty { removeLast() }
    }
}
