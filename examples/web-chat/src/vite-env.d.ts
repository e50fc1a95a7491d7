// Vite's client types: they declare what `import "./styles.css"` brings in, which the typecheck otherwise refuses.
/// <reference types="vite/client" />
