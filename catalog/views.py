"""Catalog screens: thin views over ``catalog.store``."""

from __future__ import annotations

from dataclasses import replace

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from catalog import presenters, store, types
from catalog.documents import MAX_TAGS
from catalog.forms import ProductFilterForm, ProductForm, ReviewForm, TagsField
from config import autocomplete
from config.activity import Actor
from config.bulkdelete import BulkDelete, back_to_list, bulk_delete, selected_ids
from config.forms import focus_first_error
from config.listing import ListSpec, page_of, render_list, url_for_each
from config.saving import Saved, post_only, refill, save_view
from config.shortcuts import or_404

PRODUCTS = ListSpec(
    sorts=("name", "price", "rating", "reviews", "created", "type", "brand", "sku"),
    default_order="-created",
    filters=("type", "tags_all", "tags_any", "tags_none"),
    filter_form=ProductFilterForm,
)
UNFILTERED = replace(PRODUCTS, filter_form=None)  # the same list read when no filter is asked for
FILTER_PARAMS = ("q", *PRODUCTS.filters)
REVIEWS = ListSpec(per_page=20)


def _detail_url(product_id: int) -> str:
    return reverse("catalog:product_detail", args=[product_id])


def _actor(request, product_id: int | None = None) -> Actor:
    """The signed-in user; a product's event links to its page, a review's to its product's reviews."""

    def link(entity: str, object_id: str) -> str:
        if entity == "review":
            return _detail_url(product_id) + "#reviews"
        return _detail_url(int(object_id))

    return Actor(request.user.get_username(), link=link)


def _tag_renames(form: ProductForm) -> tuple[str, ...]:
    """What the saved message adds when typed tags were made slugs."""
    renames = ", ".join(f"“{raw}” as {slug}" for raw, slug in form.tag_renames)
    return (f"Tags are lowercase words joined by dashes: saved {renames}.",) if renames else ()


def product_suggest(request):
    """The search box's suggestions: products whose name holds the text, each a link to its page."""
    return autocomplete.respond(
        request, store.suggest, link=url_for_each("catalog:product_detail"), page="catalog:product_list"
    )


def _delete_products(ids: list[int], actor: Actor) -> tuple[list[str], int]:
    """The ticked products deleted in one script (a partition): their names, and how many were gone."""
    deleted, gone = store.delete_many(ids, actor=actor)
    return [product.name for product in deleted], gone


PRODUCTS_BULK = BulkDelete(
    noun="product", plural="products", list_name="catalog:product_list", detail_name="catalog:product_detail",
    action_name="catalog:product_bulk_delete", labels=store.product_labels,
    what_goes="with their reviews",
    delete_many=_delete_products,
    pattern_note="in one Lua script (one a partition) with every key in KEYS: their hashes, reviews, type and tag "
    "memberships, sort, name and n-gram index entries.",
)  # fmt: skip


@post_only(lambda: reverse("catalog:product_list"))
def product_bulk_delete(request):
    return bulk_delete(request, PRODUCTS_BULK, _actor(request))


@post_only(lambda: reverse("catalog:product_list"))
def product_bulk_tag(request):
    """Tag or untag the ticked products with the typed tags: one script (a partition), every index kept."""
    back, ids, action = back_to_list(request, "catalog:product_list"), selected_ids(request), request.POST.get("action")
    field = TagsField(limit=5)
    try:
        tags = field.clean(request.POST.get("tag", ""))
    except ValidationError as error:
        messages.error(request, f"{' '.join(error.messages)} Nothing was changed.")
        return back
    if action not in ("tag", "untag") or not tags:
        messages.error(request, "Type a tag, then choose Tag selected or Untag selected; nothing was changed.")
        return back
    if not ids:
        messages.warning(request, "Tick the products to change first; nothing was changed.")
        return back
    adding = action == "tag"
    done = store.retag(ids, add=tags if adding else (), remove=() if adding else tags, actor=_actor(request))
    listed = ", ".join(tags)
    if done.changed:
        names = ", ".join(f"“{name}”" for name in done.changed)
        verb = f"Tagged {listed}:" if adding else f"Took {listed} from"
        messages.success(request, f"{verb} {len(done.changed)} product{pluralize(len(done.changed))}: {names}.")
    if done.unchanged:
        held = f"had {listed} already" if adding else f"did not have {listed}"
        messages.info(request, f"{done.unchanged} of the selected products {held}: left as they were.")
    if done.skipped:
        messages.info(
            request, f"{done.skipped} of the selected products were deleted meanwhile or hold {MAX_TAGS} tags: skipped."
        )
    return back


def _list_query(request) -> tuple:
    """The list's state, its query for the store and its bound filter form: None with no filter (most
    requests), where building it would cost more than the rest of the view and validate nothing."""
    if any(request.GET.get(name) for name in FILTER_PARAMS):
        state = PRODUCTS.read(request)
        return state, state.form.query(state.order, state.offset, state.per_page), state.form
    state = UNFILTERED.read(request)
    return (
        state,
        store.ProductQuery(order=state.order, offset=state.offset, limit=state.per_page, live_counts=True),
        None,
    )


def product_list(request):
    """One page of products; each row's link and printed numbers are prepared once (``presenters``)."""
    state, query, filters = _list_query(request)
    result = store.list_products(query)
    columns = presenters.type_columns(types.TYPES[query.type].fields if query.type else ())
    chosen = filters.cleaned_data if filters is not None else {}
    context = {
        "page": page_of(result.rows, result.total, state, reachable=result.reachable),
        "state": state,
        "filters": filters,
        "filter_fields": presenters.filter_fields(filters),
        "result": result,
        "rows": presenters.product_rows(result.rows, columns),
        "columns": columns,
        "type_chips": presenters.type_chips(
            state,
            [(types.TYPES[slug], count) for slug, count in result.type_counts.items()],
            chosen.get("type") or "",
            result.catalog_size,
        ),
        "tag_chips": presenters.tag_chips(state, result.tag_cloud, chosen.get("tags_all") or ()),
        "search_limit": store.SEARCH_LIMIT,
        "live_count_limit": store.LIVE_COUNT_LIMIT,
    }
    return render_list(request, "catalog/product_list.html", context)


SWITCH = "_switch"  # the type select's button: show the form for the type chosen, keeping the input


def _product_form(request, kind, initial: dict | None, product_id: int | None = None) -> tuple[ProductForm, bool]:
    """The product form, and whether this request switches its type (``ProductForm.switched``)."""
    if request.method == "POST" and SWITCH in request.POST:
        initial = ProductForm.switched(request.POST, kind)
        return ProductForm(initial=initial, product_type=kind, product_id=product_id), True
    return ProductForm(request.POST or None, initial=initial, product_type=kind, product_id=product_id), False


@require_http_methods(["GET", "POST"])
def product_add(request):
    """Step 1 picks the type (``?type=`` absent); step 2 is that type's form."""
    slug = request.POST.get("type") if request.method == "POST" else request.GET.get("type")
    if not slug:
        return render(request, "catalog/product_type_choose.html", {"types": types.TYPES.values()})
    kind = or_404(types.get, slug)
    form, switching = _product_form(request, kind, None)

    def save(data) -> Saved:
        product = form.to_product()
        product_id = store.add(product, actor=_actor(request))
        return Saved(product_id, f"Added {kind.label} “{product.name}”.", notes=_tag_renames(form))

    return save_view(
        request, form, entity="catalog:product", template=_template(request),
        context={"kind": kind, "adding": True}, save=save, add_query=f"?type={kind.slug}", redisplay=switching,
    )  # fmt: skip


def _template(request) -> str:
    """The form page, or for htmx (the type select's switch) the form alone, which replaces the page's."""
    return "catalog/product_form.html" + ("#product-form" if request.htmx else "")


def _detail_context(product, review_form: ReviewForm | None = None) -> dict:
    """The product page's context: its rating as printed, the 3 newest reviews and the review form."""
    return {
        "product": product,
        "price": product.price,  # printed by the money filter
        "average": presenters.rating_of(product.num_reviews, product.sum_ratings),
        "recent_reviews": presenters.review_items(product.recent, product.id),
        "review_form": review_form,  # a refused review's form; else the fields rendered once, below
        "review_fields": None if review_form else presenters.empty_review_fields(),
    }


def product_detail(request, pk: int):
    """The product; its review form refilled from a review that met an expired session."""
    product = or_404(store.get, pk)
    review = refill(request, ReviewForm(), reverse("catalog:review_add", args=[pk]))
    context = _detail_context(product, focus_first_error(review) if review.is_bound else None)
    return render(request, "catalog/product_detail.html", context)


@require_http_methods(["GET", "POST"])
def product_edit(request, pk: int):
    """Switching the type (``_switch``) shows the new type's form with the user's input kept."""
    product = or_404(store.get, pk)
    slug = request.POST.get("type") if request.method == "POST" else request.GET.get("type", product.type)
    kind = or_404(types.get, slug) if slug else None  # a product may have no type (imported from a source without)
    form, switching = _product_form(request, kind, ProductForm.initial_for(product), pk)

    def save(data) -> Saved:
        changed = form.to_product()
        store.update(pk, changed, int(data["version"]), actor=_actor(request), current=product)
        return Saved(pk, f"Saved “{changed.name}”.", notes=_tag_renames(form))

    return save_view(
        request, form, entity="catalog:product", template=_template(request),
        context={"kind": kind, "product": product, "adding": False}, save=save, redisplay=switching,
        theirs=lambda conflict: ProductForm.initial_for(or_404(store.get, pk)),
        add_query=f"?type={kind.slug}" if kind else "",
    )  # fmt: skip


@require_http_methods(["GET", "POST"])
def product_delete(request, pk: int):
    """GET asks first; POST deletes (the store reads what it deletes, so the view reads nothing)."""
    if request.method == "POST":
        try:
            product = store.delete(pk, actor=_actor(request))
        except store.NotFound:
            raise Http404("No such product") from None
        reviews = f"{product.num_reviews} review{'s' if product.num_reviews != 1 else ''}"
        messages.success(request, f"Deleted “{product.name}” and its {reviews}.")
        return redirect("catalog:product_list")
    product = or_404(store.get, pk)
    return render(request, "catalog/product_confirm_delete.html", {"product": product})


def review_list(request, pk: int):
    """All reviews, 20 a page, newest first: loaded under the product with htmx, or as a page."""
    state = REVIEWS.read(request)
    found = or_404(store.review_page, pk, state.offset, state.per_page)
    context = {
        "product_id": pk,
        "product_name": found.product_name,
        "reviews": presenters.review_items(found.reviews, pk),
        "page": page_of(found.reviews, found.total, state),
        "state": state,
        "url": reverse("catalog:review_list", args=[pk]),
    }
    return render_list(request, "catalog/review_list.html", context, "review-page")


@post_only(lambda pk: _detail_url(pk) + "#add-review")
def review_add(request, pk: int):
    form = ReviewForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            author, comment = data["author"].strip(), data["comment"].strip()
            added = store.add_named_review(pk, author, data["rating"], comment, actor=_actor(request, pk))
        except store.NotFound:
            raise Http404("No such product") from None
        messages.success(request, f"Your review of “{added.product_name}” was added.")
        return redirect(_detail_url(pk) + "#reviews")
    product = or_404(store.get, pk)
    context = _detail_context(product, focus_first_error(form))
    return render(request, "catalog/product_detail.html", context, status=400)


@require_http_methods(["GET", "POST"])
def review_delete(request, pk: int, review_pk: int):
    """GET asks first; POST deletes through the product (a review of another product is a 404)."""
    if request.method == "POST":
        try:
            deleted = store.delete_review(review_pk, actor=_actor(request, pk), product_id=pk)
        except store.NotFound:
            raise Http404("No such review on this product") from None
        messages.success(request, f"Deleted the review by {deleted.get('author')}.")
        return redirect(_detail_url(pk) + "#reviews")
    review = store.get_review(review_pk)
    if review is None or review.product != pk:
        raise Http404("No such review on this product")
    context = {"reviews": presenters.review_items([review], pk), "product_id": pk}
    return render(request, "catalog/review_confirm_delete.html", context)


def catalog_home(request):
    return redirect("catalog:product_list")
