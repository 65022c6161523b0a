using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace Shop.Orders
{
    public interface IOrderRepository
    {
        Task<Order?> FindAsync(Guid id);
        Task SaveAsync(Order order);
    }

    public record Order(Guid Id, string Customer, decimal Total);

    public enum OrderStatus
    {
        Open,
        Paid,
        Shipped
    }

    public struct Money
    {
        public decimal Amount;
        public string Currency;
    }

    public class OrderService
    {
        private readonly IOrderRepository _repo;

        public OrderService(IOrderRepository repo)
        {
            _repo = repo ?? throw new ArgumentNullException(nameof(repo));
        }

        public int Count { get; private set; }

        public async Task<Order> PlaceAsync(string customer, IEnumerable<decimal> prices)
        {
            decimal total = 0;
            foreach (var p in prices)
            {
                total += p;
            }
            var order = new Order(Guid.NewGuid(), customer, total);
            await _repo.SaveAsync(order);
            Count++;
            return order;
        }

        private static bool IsLarge(Order order) => order.Total > 1000m;
    }
}
