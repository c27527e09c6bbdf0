-- airline: one week and a half of flights between fourteen airports (June 2024),
-- with the aircraft flying them. Distances are great-circle distances rounded
-- to 10 km; prices are the cheapest economy fare in euros.

CREATE TABLE airports (
    code         TEXT PRIMARY KEY,   -- IATA code
    name         TEXT NOT NULL,
    city         TEXT NOT NULL,
    country      TEXT NOT NULL,
    elevation_ft INTEGER NOT NULL    -- in feet above sea level
);

CREATE TABLE aircraft (
    aircraft_id  INTEGER PRIMARY KEY,
    registration TEXT NOT NULL,
    model        TEXT NOT NULL,
    manufacturer TEXT NOT NULL,
    seats        INTEGER NOT NULL,
    range_km     INTEGER NOT NULL
);

CREATE TABLE flights (
    flight_id      INTEGER PRIMARY KEY,
    flight_number  TEXT NOT NULL,
    origin         TEXT NOT NULL REFERENCES airports (code),
    destination    TEXT NOT NULL REFERENCES airports (code),
    aircraft_id    INTEGER REFERENCES aircraft (aircraft_id),  -- NULL until an aircraft is assigned
    departure      DATETIME NOT NULL,  -- local time at the origin
    duration_min   INTEGER NOT NULL,
    distance_km    INTEGER NOT NULL,
    price_eur      REAL NOT NULL,
    status         TEXT NOT NULL       -- scheduled, landed, delayed or cancelled
);

INSERT INTO airports (code, name, city, country, elevation_ft) VALUES
    ('LHR', 'London Heathrow Airport', 'London', 'United Kingdom', 83),
    ('LGW', 'London Gatwick Airport', 'London', 'United Kingdom', 202),
    ('MAN', 'Manchester Airport', 'Manchester', 'United Kingdom', 257),
    ('CDG', 'Paris Charles de Gaulle Airport', 'Paris', 'France', 392),
    ('FRA', 'Frankfurt Airport', 'Frankfurt', 'Germany', 364),
    ('MUC', 'Munich Airport', 'Munich', 'Germany', 1487),
    ('AMS', 'Amsterdam Airport Schiphol', 'Amsterdam', 'Netherlands', -11),
    ('MAD', 'Adolfo Suárez Madrid–Barajas Airport', 'Madrid', 'Spain', 1998),
    ('BCN', 'Josep Tarradellas Barcelona–El Prat Airport', 'Barcelona', 'Spain', 14),
    ('FCO', 'Rome Fiumicino Airport', 'Rome', 'Italy', 13),
    ('JFK', 'John F. Kennedy International Airport', 'New York', 'United States', 13),
    ('DEN', 'Denver International Airport', 'Denver', 'United States', 5434),
    ('MEX', 'Mexico City International Airport', 'Mexico City', 'Mexico', 7316),
    ('DXB', 'Dubai International Airport', 'Dubai', 'United Arab Emirates', 62);

INSERT INTO aircraft (aircraft_id, registration, model, manufacturer, seats, range_km) VALUES
    (1, 'G-EUYA', 'A320-200', 'Airbus', 180, 6100),
    (2, 'G-NEOP', 'A320neo', 'Airbus', 186, 6300),
    (3, 'A6-EUA', 'A380-800', 'Airbus', 509, 15000),
    (4, 'F-HTYA', 'A350-900', 'Airbus', 324, 15000),
    (5, 'G-ZBJA', '787-8', 'Boeing', 214, 13600),
    (6, 'N783UA', '777-200ER', 'Boeing', 269, 13000),
    (7, 'EI-DWA', '737-800', 'Boeing', 189, 5400),
    (8, 'PH-EZA', 'E190', 'Embraer', 100, 4500),
    (9, 'D-ACNA', 'CRJ900', 'Bombardier', 90, 2900);

INSERT INTO flights (flight_id, flight_number, origin, destination, aircraft_id, departure, duration_min, distance_km, price_eur, status) VALUES
    (1, 'BA304', 'LHR', 'CDG', 1, '2024-06-03 07:15', 75, 340, 129.0, 'landed'),
    (2, 'AF1381', 'CDG', 'LHR', 2, '2024-06-03 09:40', 80, 340, 112.5, 'landed'),
    (3, 'BA117', 'LHR', 'JFK', 6, '2024-06-03 08:25', 475, 5540, 689.0, 'landed'),
    (4, 'VS3', 'LHR', 'JFK', 5, '2024-06-04 11:30', 480, 5540, 645.0, 'delayed'),
    (5, 'LH400', 'FRA', 'JFK', 3, '2024-06-04 10:05', 525, 6200, 712.0, 'landed'),
    (6, 'LH901', 'FRA', 'LHR', 1, '2024-06-04 07:30', 100, 650, 159.0, 'landed'),
    (7, 'LH1114', 'FRA', 'MAD', 2, '2024-06-05 09:50', 155, 1420, 189.0, 'landed'),
    (8, 'LH2474', 'MUC', 'LHR', 1, '2024-06-05 12:20', 125, 940, 174.0, 'cancelled'),
    (9, 'KL1001', 'AMS', 'LHR', 8, '2024-06-05 06:45', 70, 370, 98.0, 'landed'),
    (10, 'KL1667', 'AMS', 'BCN', 7, '2024-06-06 10:10', 135, 1240, 119.0, 'landed'),
    (11, 'IB3166', 'MAD', 'LHR', 2, '2024-06-06 16:15', 150, 1260, 135.0, 'landed'),
    (12, 'VY7832', 'BCN', 'LGW', 1, '2024-06-06 14:05', 130, 1140, 64.99, 'landed'),
    (13, 'IB6251', 'MAD', 'JFK', 4, '2024-06-07 12:20', 500, 5770, 598.0, 'delayed'),
    (14, 'AZ201', 'FCO', 'LHR', 2, '2024-06-07 08:00', 165, 1440, 142.0, 'landed'),
    (15, 'AZ610', 'FCO', 'JFK', 4, '2024-06-07 10:15', 600, 6880, 702.0, 'landed'),
    (16, 'EK1', 'DXB', 'LHR', 3, '2024-06-08 07:45', 460, 5470, 655.0, 'landed'),
    (17, 'EK2', 'LHR', 'DXB', 3, '2024-06-08 14:30', 415, 5470, 670.0, 'landed'),
    (18, 'EK201', 'DXB', 'JFK', 3, '2024-06-08 02:30', 840, 11020, 899.0, 'landed'),
    (19, 'UA1640', 'DEN', 'JFK', 6, '2024-06-09 06:00', 240, 2620, 249.0, 'landed'),
    (20, 'UA1641', 'JFK', 'DEN', NULL, '2024-06-14 18:10', 265, 2620, 239.0, 'scheduled'),
    (21, 'AM16', 'MEX', 'JFK', 5, '2024-06-09 08:35', 285, 3360, 389.0, 'landed'),
    (22, 'AM1', 'MEX', 'MAD', 5, '2024-06-10 20:15', 640, 9070, 815.0, 'landed'),
    (23, 'UA1876', 'DEN', 'MEX', 7, '2024-06-10 13:40', 210, 2320, 279.0, 'cancelled'),
    (24, 'U22141', 'MAN', 'BCN', 2, '2024-06-11 06:20', 140, 1400, 79.99, 'landed'),
    (25, 'FR1183', 'MAN', 'FCO', 7, '2024-06-11 09:55', 170, 1690, 49.99, 'landed'),
    (26, 'KL1070', 'MAN', 'AMS', 8, '2024-06-12 11:05', 75, 490, 89.0, 'landed'),
    (27, 'BA2550', 'LGW', 'FCO', 1, '2024-06-12 10:40', 150, 1440, 88.0, 'landed'),
    (28, 'LH1938', 'MUC', 'FCO', 9, '2024-06-13 07:10', 90, 700, 129.0, 'landed'),
    (29, 'LH2228', 'MUC', 'CDG', 9, '2024-06-13 15:25', 95, 690, 139.0, 'delayed'),
    (30, 'AF1718', 'CDG', 'MUC', NULL, '2024-06-14 12:50', 90, 690, 149.0, 'scheduled'),
    (31, 'AF22', 'CDG', 'JFK', 4, '2024-06-14 10:30', 505, 5840, 612.0, 'scheduled'),
    (32, 'EK73', 'DXB', 'CDG', 3, '2024-06-14 03:20', 440, 5250, 598.0, 'scheduled'),
    (33, 'BA954', 'LHR', 'MUC', 1, '2024-06-13 17:05', 110, 940, 165.0, 'landed');
