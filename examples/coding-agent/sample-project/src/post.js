import { slugify } from "./slugify.js";

/** The path a blog post is published under. */
export function postPath(post) {
  return `/posts/${slugify(post.title)}`;
}
